package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
)

// Settling a delivery must look only at its own submission's deliveries,
// whatever the size of the table: the bench found the statement scanning
// every delivery in each call (a hashed EXISTS chosen while the table was
// small and kept by the generic plan of the prepared statement).
func TestSettlingReadsOnlyTheSubmissionsOwnDeliveries(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	for _, size := range []int{500, 20000} {
		if _, err := pool.Exec(ctx, `TRUNCATE deliveries`); err != nil {
			t.Fatal(err)
		}
		// A day's deliveries, one in ten failed.
		if _, err := pool.Exec(ctx, `INSERT INTO deliveries (id, submission_id, form_id, kind, status, attempts, updated_at)
			SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'email',
			       CASE WHEN g % 10 = 0 THEN 'failed' ELSE 'succeeded' END, 1, now()
			FROM generate_series(1, $1::int) AS g`, size); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `ANALYZE deliveries`); err != nil {
			t.Fatal(err)
		}
		plan := genericPlan(t, pool, postgres.SettlePayloads, "uuid[]", "int[]")
		if strings.Contains(plan, "Seq Scan on deliveries") || strings.Contains(plan, "Bitmap Heap Scan on deliveries") {
			t.Errorf("with %d deliveries, settling scans them all:\n%s", size, plan)
		}
		if !strings.Contains(plan, "deliveries_submission") {
			t.Errorf("with %d deliveries, settling does not read them by submission:\n%s", size, plan)
		}
	}
}

// genericPlan is EXPLAIN of query as a prepared statement's generic plan,
// the plan a statement cached by pgx runs with whatever its arguments.
func genericPlan(t *testing.T, pool *pgxpool.Pool, query string, types ...string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	nulls := strings.TrimSuffix(strings.Repeat("NULL, ", len(types)), ", ")
	for _, stmt := range []string{`SET plan_cache_mode = force_generic_plan`,
		`PREPARE planned (` + strings.Join(types, ", ") + `) AS ` + query} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	defer conn.Exec(ctx, `DEALLOCATE planned; RESET plan_cache_mode`) //nolint:errcheck // the connection is released either way
	rows, err := conn.Query(ctx, `EXPLAIN EXECUTE planned (`+nulls+`)`)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
