package postgres_test

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/migrations"
)

// prereleaseFiles is the migration chain pre-release builds applied, kept as
// test data: the tests build the databases those builds left behind from it.
//
//go:embed testdata/prerelease/*.sql
var prereleaseFiles embed.FS

// prereleaseLast is the chain's last version.
const prereleaseLast = 37

// prereleaseFunctions are the functions a pre-release database has and the
// baseline has not, written out here rather than taken from the adapter so
// that the tests check its list too.
var prereleaseFunctions = []string{
	"formd_charge_quota", "formd_expect_form_versions", "formd_admit_submissions",
	"formd_settle_payloads", "formd_claim_deliveries", "formd_claim_deliveries_with_payloads",
}

// migrateTo brings the database of pool to a version of the pre-release
// chain, as a pre-release build would have.
func migrateTo(t *testing.T, ctx context.Context, pool *pgxpool.Pool, version int64) {
	t.Helper()
	chain, err := fs.Sub(prereleaseFiles, "testdata/prerelease")
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, chain)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.UpTo(ctx, version); err != nil {
		t.Fatalf("migrate to %d: %v", version, err)
	}
}

// freshDatabase creates an empty database named prefix and a random
// suffix, dropped when the test ends, for a test that migrates it step by
// step.
func freshDatabase(t *testing.T, ctx context.Context, prefix string) *pgxpool.Pool {
	t.Helper()
	name := prefix + uuid.NewString()[:8]
	u, err := url.Parse(pgtest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	t.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), pgtest.AdminURL()); err == nil {
			_, _ = c.Exec(context.Background(), fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name))
			_ = c.Close(context.Background())
		}
	})
	pool, err := postgres.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// schemaOf is the database's schema as pg_dump writes it, without the
// comments and the per-run \restrict keys, so two dumps of equal schemas
// are equal strings.
func schemaOf(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	if _, err := exec.LookPath("pg_dump"); err != nil {
		t.Skip("pg_dump is not installed (Debian: postgresql-client)")
	}
	out, err := exec.Command("pg_dump", "--schema-only", "--no-owner", "--no-privileges",
		"--dbname="+pool.Config().ConnString()).Output()
	if err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	var kept []string
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" || strings.HasPrefix(line, "--") || strings.HasPrefix(line, `\restrict`) || strings.HasPrefix(line, `\unrestrict`) {
			continue
		}
		kept = append(kept, line)
	}
	return strings.Join(kept, "\n")
}

// contentsOf is every row of every table but goose's, one digest a table.
func contentsOf(t *testing.T, ctx context.Context, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	return contentsIn(t, ctx, pool, columnsOf(t, ctx, pool))
}

// columnsOf lists each table's columns in their order (goose's own table
// left out).
func columnsOf(t *testing.T, ctx context.Context, pool *pgxpool.Pool) map[string][]string {
	t.Helper()
	rows, err := pool.Query(ctx, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = 'public' AND table_name <> 'goose_db_version' ORDER BY table_name, ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	columns := map[string][]string{}
	var table, column string
	if _, err := pgx.ForEachRow(rows, []any{&table, &column}, func() error {
		columns[table] = append(columns[table], pgx.Identifier{column}.Sanitize())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return columns
}

// contentsIn digests the rows of each table as the given columns hold
// them, so a table a later migration widened still digests as it was.
func contentsIn(t *testing.T, ctx context.Context, pool *pgxpool.Pool, columns map[string][]string) map[string]string {
	t.Helper()
	contents := map[string]string{}
	for table, cols := range columns {
		var digest string
		row := "ROW(" + strings.Join(cols, ", ") + ")::text"
		q := fmt.Sprintf(`SELECT count(*) || ':' || coalesce(md5(string_agg(%s, ',' ORDER BY %s)), '') FROM %s t`,
			row, row, pgx.Identifier{table}.Sanitize())
		if err := pool.QueryRow(ctx, q).Scan(&digest); err != nil {
			t.Fatal(err)
		}
		contents[table] = digest
	}
	return contents
}

// laterVersions are goose's versions of the migrations after the baseline,
// in order: what a database migrated to the baseline gets next.
func laterVersions(t *testing.T) []int64 {
	t.Helper()
	entries, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, name := range entries {
		var v int64
		if _, err := fmt.Sscanf(name, "%05d_", &v); err != nil {
			t.Fatalf("migration %s: %v", name, err)
		}
		if v > migrations.BaselineVersion {
			out = append(out, v)
		}
	}
	return out
}

// baselineOnly is a new database migrated to the v0.1.0 baseline and no
// further, as the pre-release chain is compared with: later migrations
// change the schema on purpose.
func baselineOnly(t *testing.T, ctx context.Context) *pgxpool.Pool {
	t.Helper()
	pool := freshDatabase(t, ctx, "formd_baseline_only_")
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.UpTo(ctx, migrations.BaselineVersion); err != nil {
		t.Fatal(err)
	}
	return pool
}

// versionsOf is goose's record of the migrations applied.
func versionsOf(t *testing.T, ctx context.Context, pool *pgxpool.Pool) []int64 {
	t.Helper()
	rows, err := pool.Query(ctx, `SELECT version_id FROM goose_db_version ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	return versions
}

// upToDate fails the test unless goose, given formd's migrations, has
// nothing to apply to the database and places it at the last of them.
func upToDate(t *testing.T, ctx context.Context, pool *pgxpool.Pool) {
	t.Helper()
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	pending, err := provider.HasPending(ctx)
	if err != nil || pending {
		t.Fatalf("goose has pending migrations: %v (err %v)", pending, err)
	}
	have, err := provider.GetDBVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sources := provider.ListSources()
	if want := sources[len(sources)-1].Version; have != want {
		t.Fatalf("database at version %d, want %d", have, want)
	}
}

// baselineDatabase is a new database migrated by formd.
func baselineDatabase(t *testing.T, ctx context.Context) *pgxpool.Pool {
	t.Helper()
	pool := freshDatabase(t, ctx, "formd_baseline_")
	if err := postgres.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	return pool
}

// The baseline is what the pre-release chain built, less the functions no
// build calls any more: tables, columns, defaults, constraints, indexes,
// sequences, triggers and the functions kept, bodies and all.
func TestBaselineSchemaIsThePrereleaseChainsLessItsUnusedFunctions(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	chain := freshDatabase(t, ctx, "formd_prerelease_")
	migrateTo(t, ctx, chain, prereleaseLast)
	for _, f := range prereleaseFunctions {
		if _, err := chain.Exec(ctx, "DROP FUNCTION "+f); err != nil {
			t.Fatal(err)
		}
	}
	baseline := baselineOnly(t, ctx)
	if got, want := schemaOf(t, baseline), schemaOf(t, chain); got != want {
		t.Fatalf("the baseline's schema differs from the pre-release chain's:\n%s", lineDiff(want, got))
	}
	// The rows a schema needs to work come with it.
	if got, want := contentsOf(t, ctx, baseline)["telegram_updates"], contentsOf(t, ctx, chain)["telegram_updates"]; got != want {
		t.Fatalf("telegram_updates holds %s, want %s as the chain left it", got, want)
	}
}

// A database a pre-release build migrated is carried to the baseline, and on
// through the later migrations, by formd's migrate step, its rows as they
// were (in the columns they had), even with two processes starting at once,
// each with a pool of one connection; goose then has nothing to apply, and
// migrating again changes nothing.
func TestMigrateCarriesAPrereleaseDatabaseToTheBaseline(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*testTimeout)
	defer cancel()
	pool := freshDatabase(t, ctx, "formd_carried_")
	migrateTo(t, ctx, pool, prereleaseLast)
	seedPrereleaseRows(t, ctx, pool)
	columns := columnsOf(t, ctx, pool)
	before := contentsIn(t, ctx, pool, columns)

	oneConnection := withOneConnection(t, pool.Config().ConnString())
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := postgres.Connect(ctx, oneConnection)
			if err != nil {
				errs[i] = err
				return
			}
			defer p.Close()
			errs[i] = postgres.Migrate(ctx, p)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("migrate a pre-release database: %v", err)
		}
	}

	if got, want := schemaOf(t, pool), schemaOf(t, baselineDatabase(t, ctx)); got != want {
		t.Fatalf("the carried database's schema differs from the baseline's:\n%s", lineDiff(want, got))
	}
	after := contentsIn(t, ctx, pool, columns)
	for table, digest := range before {
		if after[table] != digest {
			t.Errorf("table %s changed: %s, was %s", table, after[table], digest)
		}
	}
	upToDate(t, ctx, pool)
	versions := versionsOf(t, ctx, pool)
	if want := append([]int64{0, migrations.BaselineVersion}, laterVersions(t)...); fmt.Sprint(versions) != fmt.Sprint(want) {
		t.Fatalf("goose records versions %v, want %v", versions, want)
	}

	schema := schemaOf(t, pool)
	if err := postgres.Migrate(ctx, pool); err != nil {
		t.Fatalf("migrate again: %v", err)
	}
	if schemaOf(t, pool) != schema || fmt.Sprint(versionsOf(t, ctx, pool)) != fmt.Sprint(versions) {
		t.Fatal("migrating a carried database again changed it")
	}
}

// Migrating a database at the baseline again is a no-op.
func TestMigrateTwiceIsANoOp(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	pool := baselineDatabase(t, ctx)
	schema, contents, versions := schemaOf(t, pool), contentsOf(t, ctx, pool), versionsOf(t, ctx, pool)
	if err := postgres.Migrate(ctx, pool); err != nil {
		t.Fatalf("migrate again: %v", err)
	}
	if schemaOf(t, pool) != schema {
		t.Error("the schema changed")
	}
	if fmt.Sprint(contentsOf(t, ctx, pool)) != fmt.Sprint(contents) {
		t.Error("rows changed")
	}
	if got := versionsOf(t, ctx, pool); fmt.Sprint(got) != fmt.Sprint(versions) {
		t.Errorf("goose records %v, was %v", got, versions)
	}
	upToDate(t, ctx, pool)
}

// A database a pre-release build left part way through its chain is
// refused, untouched, with what to do: the carry relies on every step of the
// chain having run.
func TestMigrateRefusesAPartlyMigratedPrereleaseDatabase(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	pool := freshDatabase(t, ctx, "formd_partial_")
	migrateTo(t, ctx, pool, 30)
	versions := versionsOf(t, ctx, pool)
	err := postgres.Migrate(ctx, pool)
	if err == nil || !strings.Contains(err.Error(), "pre-release formd to version 30") {
		t.Fatalf("migrate a database at pre-release version 30: %v", err)
	}
	if got := versionsOf(t, ctx, pool); fmt.Sprint(got) != fmt.Sprint(versions) {
		t.Fatalf("goose records %v, was %v", got, versions)
	}
}

// seedPrereleaseRows writes a little of everything a pre-release database
// holds: an account with a form, its events, a submission's payload and
// delivery, a month's quota use and a pending upload.
func seedPrereleaseRows(t *testing.T, ctx context.Context, pool *pgxpool.Pool) {
	t.Helper()
	account, workspace, form, submission := uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString()
	_, err := pool.Exec(ctx, `
		WITH a AS (INSERT INTO accounts (id, email, created_at, plan) VALUES ($1, $5, now(), 'pro')),
		w AS (INSERT INTO workspaces (id, account_id, name, created_at) VALUES ($2, $1, 'main', now())),
		f AS (INSERT INTO forms (id, account_id, workspace_id, access_key_hash, access_key_prefix, settings, version, created_at, updated_at)
		      VALUES ($3, $1, $2, sha256($5::bytea), 'fk_', '{"name":"contact"}', 2, now(), now())),
		e AS (INSERT INTO events (stream_type, stream_id, version, event_type, data)
		      VALUES ('form', $3, 1, 'form.created.v1', '{}'), ('form', $3, 2, 'form.renamed.v1', '{}')),
		p AS (INSERT INTO submission_payloads (submission_id, form_id, wrapped_key, ciphertext, pending, key_id)
		      VALUES ($4, $3, '\x01', '\x02', 1, 'k1')),
		d AS (INSERT INTO deliveries (id, submission_id, form_id, kind, status, next_attempt_at, target)
		      VALUES (gen_random_uuid(), $4, $3, 'email', 'queued', now(), 'example.com')),
		q AS (INSERT INTO submission_quota_usage (account_id, month, used) VALUES ($1, date_trunc('month', now())::date, 7))
		INSERT INTO upload_reservations (key, form_id, name, declared_type, size, reserved_at, expires_at)
		VALUES ($6, $3, 'cv.pdf', 'application/pdf', 10, now(), now() + interval '1 hour')`,
		account, workspace, form, submission, account+"@example.com", "up_"+submission)
	if err != nil {
		t.Fatal(err)
	}
}

// withOneConnection is databaseURL with a pool of one connection.
func withOneConnection(t *testing.T, databaseURL string) string {
	t.Helper()
	u, err := url.Parse(databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("pool_max_conns", "1")
	u.RawQuery = q.Encode()
	return u.String()
}

// lineDiff shows the lines of want that got lacks and the lines of got that
// want lacks.
func lineDiff(want, got string) string {
	count := func(s string) map[string]int {
		m := map[string]int{}
		for _, l := range strings.Split(s, "\n") {
			m[l]++
		}
		return m
	}
	w, g := count(want), count(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if g[l] < w[l] {
			fmt.Fprintf(&b, "- %s\n", l)
			g[l]++
		}
	}
	w, g = count(want), count(got)
	for _, l := range strings.Split(got, "\n") {
		if w[l] < g[l] {
			fmt.Fprintf(&b, "+ %s\n", l)
			w[l]++
		}
	}
	return b.String()
}
