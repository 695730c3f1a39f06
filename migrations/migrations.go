// Package migrations embeds formd's SQL migrations, applied with goose at start
// and by `formd migrate`.
package migrations

import "embed"

// FS holds the numbered goose migrations.
//
//go:embed *.sql
var FS embed.FS
