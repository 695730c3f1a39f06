package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pressly/goose/v3/lock"

	"github.com/formd/formd/migrations"
)

// prereleaseLastVersion is the last migration of the chain pre-release builds
// applied. A database they migrated holds versions 1 to it in goose's table,
// versions no release uses (migrations.BaselineVersion is above them).
const prereleaseLastVersion = 37

// prereleaseFunctions are what a pre-release database has beyond the
// baseline: functions no build since then calls.
var prereleaseFunctions = []string{
	"formd_charge_quota(uuid[], date[], int[], text[], int[], boolean)",
	"formd_expect_form_versions(uuid[], int[])",
	"formd_admit_submissions(uuid[], int[], uuid[], date[], int[], text[], int[])",
	"formd_settle_payloads(uuid[], int[])",
	"formd_claim_deliveries(timestamptz, timestamptz, int, uuid)",
	"formd_claim_deliveries_with_payloads(timestamptz, timestamptz, int, uuid)",
}

// carryPrerelease brings a database migrated by a pre-release build to the
// baseline, in one transaction. Such a database has the baseline's schema
// plus prereleaseFunctions (the tests prove it), and every data step of its
// chain ran, so dropping the functions and recording the baseline as applied
// in place of the chain's versions is all it needs. Anything else (a new
// database, one at the baseline or later) is left alone, so carrying twice is
// a no-op.
//
// The transaction first takes goose's migration lock, as a transaction-level
// advisory lock on the key of goose's session lock (the two exclude each
// other), so it never runs beside another process's carry or migrations.
// A process's migrations run after its own carry, when no pre-release
// version is left for goose to trip over.
func carryPrerelease(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lock.DefaultLockID); err != nil {
			return fmt.Errorf("take the migration lock: %w", err)
		}
		var versioned bool
		if err := tx.QueryRow(ctx, `SELECT to_regclass('goose_db_version') IS NOT NULL`).Scan(&versioned); err != nil || !versioned {
			return err
		}
		var reached *int64
		err := tx.QueryRow(ctx, `SELECT max(version_id) FROM goose_db_version WHERE version_id BETWEEN 1 AND $1`,
			prereleaseLastVersion).Scan(&reached)
		if err != nil {
			return fmt.Errorf("read the migration version: %w", err)
		}
		if reached == nil {
			return nil
		}
		if *reached < prereleaseLastVersion {
			return fmt.Errorf("the database was migrated by a pre-release formd to version %d only; "+
				"migrate it with the last pre-release build (version %d) first, or start from an empty database",
				*reached, prereleaseLastVersion)
		}
		for _, f := range prereleaseFunctions {
			if _, err := tx.Exec(ctx, "DROP FUNCTION IF EXISTS "+f); err != nil {
				return fmt.Errorf("drop pre-release function %s: %w", f, err)
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM goose_db_version WHERE version_id BETWEEN 1 AND $1`, prereleaseLastVersion); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES ($1, true)`, migrations.BaselineVersion)
		return err
	})
}
