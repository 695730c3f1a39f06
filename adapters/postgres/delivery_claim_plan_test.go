package postgres_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
)

// A claim must touch only the due deliveries it takes, whatever the number
// of finished ones the table keeps (issue 9: the claim scanned the whole
// table) and whatever the statistics last said. In the bench, a backlog that
// formed after the last ANALYZE (which had seen almost no due delivery) got
// a plan that read every due delivery and sorted them all for each claim of
// 16: 4 ms a claim with 2,000 due, growing with the backlog. Here the
// statistics are taken before the backlog exists, and the plans PostgreSQL
// actually runs for the claims formd sends are read with auto_explain: each
// must be the ordered walk of the claimable index, with no sort.
func TestTheClaimWalksTheClaimableIndexWhateverTheStatisticsSay(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	// Many finished deliveries, as after a busy day, analyzed while only a
	// few are due (their times out of the table's order, as retries and
	// claims leave them).
	if _, err := pool.Exec(ctx, `INSERT INTO deliveries (id, verification_id, kind, status, attempts, next_attempt_at, updated_at)
		SELECT gen_random_uuid(), gen_random_uuid(), 'account_verification',
		       CASE WHEN g % 5000 = 0 THEN 'queued' ELSE 'succeeded' END, 1, now() - random() * interval '1 hour', now()
		FROM generate_series(1, 20000) AS g`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE deliveries`); err != nil {
		t.Fatal(err)
	}
	// Then a backlog the statistics do not know of.
	if _, err := pool.Exec(ctx, `INSERT INTO deliveries (id, verification_id, kind, status, attempts, next_attempt_at, updated_at)
		SELECT gen_random_uuid(), gen_random_uuid(), 'account_verification', 'queued', 0, now() - random() * interval '1 hour', now()
		FROM generate_series(1, 5000)`); err != nil {
		t.Fatal(err)
	}

	plans := claimPlans(t, pool, 8) // past the plan cache's five custom plans, had it any
	for i, plan := range plans {
		if !strings.Contains(plan, "Index Scan using deliveries_claimable") || strings.Contains(plan, "Sort") ||
			strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Bitmap") {
			t.Errorf("claim %d does not walk the claimable index in order:\n%s", i+1, plan)
		}
	}
}

// The claim's generic plan must be as good as a custom one, because the
// claim asks for it (plan_cache_mode in its settings) rather than plan every call afresh. Written as id IN
// (SELECT ... LIMIT n), the generic plan, which cannot know n, hashed the
// claimed ids and joined them to a sequential scan of the whole table: every
// claim read every delivery the log keeps. And a generic plan is made once per connection, on the
// statistics of that moment: in the bench, made while the table was nearly
// empty, it kept a sequential scan for the primary-key lookup as the table
// grew (6-7 ms a claim). So each claim below must look up only what it
// claims, whether its plan was made on a table that was empty or full.
func TestTheClaimsGenericPlanLooksUpOnlyTheRowsItClaims(t *testing.T) {
	ctx := context.Background()
	fill := func(pool *pgxpool.Pool, rows int) {
		if _, err := pool.Exec(ctx, `INSERT INTO deliveries (id, verification_id, kind, status, attempts, next_attempt_at, updated_at)
			SELECT gen_random_uuid(), gen_random_uuid(), 'account_verification',
			       CASE WHEN g % 3 = 0 THEN 'queued' ELSE 'succeeded' END, 1, now() - interval '1 hour' + g * interval '1 ms', now()
			FROM generate_series(1, $1::int) AS g`, rows); err != nil {
			t.Fatal(err)
		}
	}
	analyze := func(pool *pgxpool.Pool) {
		if _, err := pool.Exec(ctx, `VACUUM ANALYZE deliveries`); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, plans func(string) []string, generic, custom int64) {
		if generic != 3 || custom != 0 {
			t.Errorf("%s: the claim ran on %d generic and %d custom plans, want its generic plan each time (3)", what, generic, custom)
		}
		for i, plan := range plans("UPDATE deliveries") {
			if strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Hash") || !strings.Contains(plan, "Index Scan using deliveries_pkey") {
				t.Errorf("%s, claim %d reads more than the rows it claims:\n%s", what, i+1, plan)
			}
		}
		payloads := plans("JOIN submission_payloads")
		if len(payloads) != 3 {
			t.Fatalf("%s: auto_explain reported %d plans of the payloads' lookup, want 3", what, len(payloads))
		}
		for i, plan := range payloads {
			if strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Hash") || !strings.Contains(plan, "Index Scan using submission_payloads_pkey") {
				t.Errorf("%s, claim %d reads more payloads than it claims:\n%s", what, i+1, plan)
			}
		}
	}

	full := pgtest.Open(t)
	fill(full, 12000)
	analyze(full)
	plans, generic, custom := claimsExplained(t, full, 3, func(int) {})
	check("planned on a full table", plans, generic, custom)

	growing := pgtest.Open(t)
	fill(growing, 60) // 20 due: the first claim's 16, and 4 left
	analyze(growing)
	plans, generic, custom = claimsExplained(t, growing, 3, func(i int) {
		if i == 1 { // after the plan is cached
			fill(growing, 12000)
		}
	})
	check("planned on a nearly empty table that grew", plans, generic, custom)
}

// claimPlans makes n claims of 16 on a connection of its own and returns
// the plans PostgreSQL ran for the claim's UPDATE, as auto_explain reports
// them; each claim must take 16.
func claimPlans(t *testing.T, pool *pgxpool.Pool, n int) []string {
	t.Helper()
	plans, _, _ := claimsExplained(t, pool, n, func(int) {})
	got := plans("UPDATE deliveries")
	if len(got) != n {
		t.Fatalf("auto_explain reported %d plans of the claim, want %d", len(got), n)
	}
	return got
}

// claimsExplained makes n claims of 16 as ClaimDue sends them, with
// before(i) run ahead of claim i on another connection while the claiming
// connection keeps its cached plans. It returns the plans auto_explain
// reported that contain the given words, and how many times the claim ran
// on its generic and on a custom plan.
func claimsExplained(t *testing.T, pool *pgxpool.Pool, n int, before func(i int)) (plans func(contains string) []string, generic, custom int64) {
	t.Helper()
	ctx := context.Background()
	conn, reported := explainedConn(t, pool)
	instance := uuid.NewString()
	for i := range n {
		before(i)
		now := time.Now().Add(time.Duration(i) * time.Millisecond)
		b := &pgx.Batch{}
		postgres.QueueClaim(b, now, now.Add(10*time.Minute), 16, instance)
		results := conn.SendBatch(ctx, b)
		if _, err := results.Exec(); err != nil {
			t.Fatal(err)
		}
		rows, err := results.Query()
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if rows.Err() != nil || rows.CommandTag().RowsAffected() != 16 {
			t.Fatalf("claim %d: %d rows, %v; want 16", i+1, rows.CommandTag().RowsAffected(), rows.Err())
		}
		if err := results.Close(); err != nil {
			t.Fatal(err)
		}
	}
	seen := reported("") // before preparedPlans, whose query auto_explain logs too
	generic, custom = preparedPlans(t, conn, postgres.ClaimQuery)
	settingEndedWithItsTransaction(t, conn, "the claim", "enable_bitmapscan")
	return func(contains string) []string {
		var out []string
		for _, p := range seen {
			if strings.Contains(p, contains) {
				out = append(out, p)
			}
		}
		return out
	}, generic, custom
}

// explainedConn opens a connection of its own on which auto_explain reports
// the plan of every statement PostgreSQL runs, functions' inner statements
// included; plans returns those reported so far whose text contains the
// given words.
func explainedConn(t *testing.T, pool *pgxpool.Pool) (*pgx.Conn, func(contains string) []string) {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var plans []string
	cfg := pool.Config().ConnConfig.Copy()
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		plans = append(plans, n.Message)
		mu.Unlock()
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	for _, stmt := range []string{`LOAD 'auto_explain'`, `SET auto_explain.log_min_duration = 0`,
		`SET auto_explain.log_nested_statements = on`, `SET client_min_messages = log`} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	return conn, func(contains string) []string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for _, p := range plans {
			if strings.Contains(p, contains) {
				out = append(out, p)
			}
		}
		return out
	}
}

// preparedPlans is how many times conn ran the prepared statement on its
// generic plan and on a custom one (pg_prepared_statements). Call it after
// reading explainedConn's plans: auto_explain logs this query too, with the
// statement's text as its parameter.
func preparedPlans(t *testing.T, conn *pgx.Conn, statement string) (generic, custom int64) {
	t.Helper()
	if err := conn.QueryRow(context.Background(), `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1`,
		statement).Scan(&generic, &custom); err != nil {
		t.Fatal(err)
	}
	return generic, custom
}

// settingEndedWithItsTransaction fails the test unless the planner setting
// name, which what sets for its transaction only, is back to on.
func settingEndedWithItsTransaction(t *testing.T, conn *pgx.Conn, what, name string) {
	t.Helper()
	var setting string
	if err := conn.QueryRow(context.Background(), `SELECT current_setting($1)`, name).Scan(&setting); err != nil || setting != "on" {
		t.Fatalf("%s's settings outlived its transaction: %s %q (%v)", what, name, setting, err)
	}
}

// asksForItsGenericPlan fails the test unless the function fn is declared to
// use its generic plans: planned once per connection, not on each call (the
// plan cache would otherwise re-plan a statement whose generic plan it
// judges costlier, as it did the claim's and the quota charge's).
func asksForItsGenericPlan(t *testing.T, pool *pgxpool.Pool, fn string) {
	t.Helper()
	var config []string
	if err := pool.QueryRow(context.Background(), `SELECT coalesce(proconfig, '{}') FROM pg_proc WHERE proname = $1`, fn).Scan(&config); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(config, "plan_cache_mode=force_generic_plan") {
		t.Errorf("%s is planned afresh whenever the plan cache judges its generic plan costlier; its settings: %v", fn, config)
	}
}
