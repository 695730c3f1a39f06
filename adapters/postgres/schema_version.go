package postgres

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pressly/goose/v3"

	"github.com/formd/formd/migrations"
)

// SchemaVersion tells whether a database's schema is at this binary's
// version: every migration the binary embeds is applied. Versions the
// binary does not know (a newer formd migrated the database) do not make it
// behind: migrations only append, so what this binary reads and writes is
// still there, and during a rolling upgrade the older processes keep serving
// until they are stopped.
type SchemaVersion struct {
	pool     *pgxpool.Pool
	embedded []int64
	// current is sticky: migrations are never undone, so once the schema
	// has caught up, asking again would only cost a query per probe.
	current atomic.Bool
}

// NewSchemaVersion checks the database of pool against the embedded
// migrations.
func NewSchemaVersion(pool *pgxpool.Pool) (*SchemaVersion, error) {
	embedded, err := embeddedVersions(migrations.FS)
	if err != nil {
		return nil, err
	}
	return &SchemaVersion{pool: pool, embedded: embedded}, nil
}

// embeddedVersions are the goose versions of the migrations in fsys.
func embeddedVersions(fsys fs.FS) ([]int64, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	versions := make([]int64, 0, len(names))
	for _, name := range names {
		v, err := goose.NumericComponent(name)
		if err != nil {
			return nil, fmt.Errorf("migration %s: %w", name, err)
		}
		versions = append(versions, v)
	}
	return versions, nil
}

// Current reports whether every embedded migration is applied. It reads
// goose's table without taking its lock, so a migration under way in
// another process neither blocks it nor is disturbed.
func (s *SchemaVersion) Current(ctx context.Context) (bool, error) {
	if s.current.Load() {
		return true, nil
	}
	var applied []int64
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var versioned bool
		if err := tx.QueryRow(ctx, `SELECT to_regclass('goose_db_version') IS NOT NULL`).Scan(&versioned); err != nil || !versioned {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT DISTINCT version_id FROM goose_db_version WHERE is_applied`)
		if err != nil {
			return err
		}
		applied, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	if err != nil {
		return false, unavailable(fmt.Errorf("read the schema version: %w", err))
	}
	for _, v := range s.embedded {
		if !slices.Contains(applied, v) {
			return false, nil
		}
	}
	s.current.Store(true)
	return true, nil
}
