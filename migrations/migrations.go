// Package migrations embeds formd's SQL migrations, applied with goose at start
// and by `formd migrate`.
//
// 00100_baseline_v0_1_0.sql is the schema of v0.1.0, the first release. From
// it on, migrations are append-only: a change to the schema is a new file
// with the next version (00101, 00102, …), and a migration is never edited
// or removed once it is on the main branch, since databases out there have
// applied it as it was. Versions 1 to 99 are left to the pre-release builds'
// chain, so that adapters/postgres recognises a database those builds
// migrated by its versions alone and carries it to the baseline; its tests
// keep that chain (adapters/postgres/testdata/prerelease) to prove the
// baseline equals what the chain built.
package migrations

import "embed"

// FS holds the numbered goose migrations.
//
//go:embed *.sql
var FS embed.FS

// BaselineVersion is the goose version of the v0.1.0 baseline.
const BaselineVersion = 100
