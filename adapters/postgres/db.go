// Package postgres holds formd's PostgreSQL adapters: the event store with its
// transactional Watermill outbox, the read models and the migrations runner.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/formd/formd/migrations"
)

// DefaultMaxConns sizes the pool when the URL does not (pool_max_conns):
// group-commit lanes, delivery workers, subscribers, LISTEN and request
// queries each hold connections.
const DefaultMaxConns = 24

// Connect opens a pool on databaseURL, creating the database first when it is
// missing (a fresh machine has only the server).
func Connect(ctx context.Context, databaseURL string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("parse database URL: %w", err)
	}
	if !strings.Contains(databaseURL, "pool_max_conns") {
		cfg.MaxConns = DefaultMaxConns
	}
	if err := ensureDatabase(ctx, cfg.ConnConfig); err != nil {
		return nil, err
	}
	cfg.AfterConnect = registerUUIDStrings
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("reach PostgreSQL: %w", err)
	}
	return pool, nil
}

func ensureDatabase(ctx context.Context, cfg *pgx.ConnConfig) error {
	name := cfg.Database
	conn, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err == nil {
		return conn.Close(ctx)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "3D000" { // invalid_catalog_name
		return fmt.Errorf("reach PostgreSQL: %w", err)
	}
	adminCfg := cfg.Copy()
	adminCfg.Database = "postgres"
	admin, err := pgx.ConnectConfig(ctx, adminCfg)
	if err != nil {
		return fmt.Errorf("reach PostgreSQL to create database %q: %w", name, err)
	}
	defer admin.Close(ctx)
	_, err = admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	if err != nil && !strings.Contains(err.Error(), "already exists") {
		return fmt.Errorf("create database %q: %w", name, err)
	}
	return nil
}

// Migrate applies the embedded migrations, first carrying a database of a
// pre-release build to the baseline (carryPrerelease). Both hold goose's
// PostgreSQL advisory lock, so several formd processes may start at once:
// the first migrates, the others wait and then find nothing to do.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	if err := carryPrerelease(ctx, pool); err != nil {
		return err
	}
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return err
	}
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	if _, err := provider.Up(ctx); err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	return nil
}
