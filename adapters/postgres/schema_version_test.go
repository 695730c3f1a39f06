package postgres_test

import (
	"context"
	"testing"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/migrations"
)

func TestSchemaVersionIsCurrentOnceEveryEmbeddedMigrationIsApplied(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	schema, err := postgres.NewSchemaVersion(pool)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE goose_db_version SET is_applied = false WHERE version_id = $1`, migrations.BaselineVersion); err != nil {
		t.Fatal(err)
	}
	if current, err := schema.Current(ctx); err != nil || current {
		t.Fatalf("baseline not applied: Current() = %v, %v; want false", current, err)
	}
	if _, err := pool.Exec(ctx, `UPDATE goose_db_version SET is_applied = true WHERE version_id = $1`, migrations.BaselineVersion); err != nil {
		t.Fatal(err)
	}
	// A version this binary does not embed: a newer formd migrated the database.
	if _, err := pool.Exec(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (99999, true)`); err != nil {
		t.Fatal(err)
	}
	if current, err := schema.Current(ctx); err != nil || !current {
		t.Fatalf("every embedded migration applied, and a newer one: Current() = %v, %v; want true", current, err)
	}
}

func TestSchemaVersionIsBehindOnADatabaseNeverMigrated(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	if _, err := pool.Exec(ctx, `DROP TABLE goose_db_version`); err != nil {
		t.Fatal(err)
	}
	schema, err := postgres.NewSchemaVersion(pool)
	if err != nil {
		t.Fatal(err)
	}
	if current, err := schema.Current(ctx); err != nil || current {
		t.Fatalf("no goose table: Current() = %v, %v; want false", current, err)
	}
}
