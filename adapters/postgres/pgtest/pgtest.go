// Package pgtest gives tests fresh, migrated PostgreSQL databases cheaply: the
// migrations run once into a template database, and each test database is a
// copy of it (CREATE DATABASE ... TEMPLATE).
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/migrations"
)

// AdminURL is the server tests use: FORMD_TEST_DATABASE_URL, else the local
// server on 127.0.0.1:5432 as user postgres.
func AdminURL() string {
	if u := os.Getenv("FORMD_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// templateName names the template after the migrations' content, so a changed
// migration gets a new template and an old one is never reused.
func templateName() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, path)
		h.Write([]byte(path))
		h.Write(b)
		return err
	})
	return "formd_tpl_" + hex.EncodeToString(h.Sum(nil))[:12], err
}

func withDatabase(base, name string) string {
	u, err := url.Parse(base)
	if err != nil {
		panic(err)
	}
	u.Path = "/" + name
	return u.String()
}

// NewDatabase creates a fresh migrated database and returns its URL and a
// function that drops it.
func NewDatabase(ctx context.Context) (string, func(), error) {
	admin, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		return "", nil, fmt.Errorf("connect to test PostgreSQL: %w", err)
	}
	defer admin.Close(ctx)
	tpl, err := templateName()
	if err != nil {
		return "", nil, err
	}
	if err := ensureTemplate(ctx, admin, tpl); err != nil {
		return "", nil, err
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "formd_test_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, tpl)); err != nil {
		return "", nil, fmt.Errorf("create test database: %w", err)
	}
	drop := func() {
		c, err := pgx.Connect(context.Background(), AdminURL())
		if err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			_ = c.Close(context.Background())
		}
	}
	return withDatabase(AdminURL(), name), drop, nil
}

// ensureTemplate builds the template once across parallel test processes,
// serialized by an advisory lock.
func ensureTemplate(ctx context.Context, admin *pgx.Conn, tpl string) error {
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock(727274)"); err != nil {
		return err
	}
	defer admin.Exec(context.Background(), "SELECT pg_advisory_unlock(727274)") //nolint:errcheck
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", tpl).Scan(&exists); err != nil || exists {
		return err
	}
	building := tpl + "_building"
	_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)")
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+building); err != nil {
		return err
	}
	pool, err := postgres.Connect(ctx, withDatabase(AdminURL(), building))
	if err != nil {
		return err
	}
	err = postgres.Migrate(ctx, pool)
	pool.Close()
	if err != nil {
		return err
	}
	if _, err = admin.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", building, tpl)); err != nil {
		return err
	}
	// The comment dates the template, so the sweep below spares templates
	// that another checkout (another branch's migrations) built recently and
	// may be cloning right now.
	if _, err = admin.Exec(ctx, fmt.Sprintf("COMMENT ON DATABASE %s IS '%d'", tpl, time.Now().Unix())); err != nil {
		return err
	}
	// Templates of other migrations that were not built lately are stale.
	rows, err := admin.Query(ctx, `SELECT d.datname FROM pg_database d
		LEFT JOIN pg_shdescription c ON c.objoid = d.oid AND c.classoid = 'pg_database'::regclass
		WHERE d.datname LIKE 'formd\_tpl\_%' AND d.datname <> $1
		  AND coalesce(nullif(c.description, ''), '0') ~ '^[0-9]+$'
		  AND coalesce(nullif(c.description, ''), '0')::bigint < $2`, tpl, time.Now().Add(-6*time.Hour).Unix())
	if err != nil {
		return err
	}
	stale, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, name := range stale {
		_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	}
	return nil
}

// Open gives a test its own fresh, migrated database and a pool on it; both
// go away when the test ends.
func Open(t testing.TB) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url, drop, err := NewDatabase(ctx)
	if err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(drop)
	pool, err := postgres.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect to test database: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}
