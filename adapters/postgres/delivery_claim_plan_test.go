package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/formd/formd/adapters/postgres/pgtest"
)

// A claim must touch only due deliveries, whatever the number of finished
// ones the table keeps (issue 9: the claim scanned the whole table). The plan
// of the claim's inner query must use the partial index of claimable rows.
func TestTheClaimReadsOnlyClaimableRows(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	// Many finished deliveries and a few due ones, as after a busy day.
	if _, err := pool.Exec(ctx, `INSERT INTO deliveries (id, verification_id, kind, status, attempts, next_attempt_at, updated_at)
		SELECT gen_random_uuid(), gen_random_uuid(), 'account_verification',
		       CASE WHEN g % 1000 = 0 THEN 'queued' ELSE 'succeeded' END, 1, now() - interval '1 minute', now()
		FROM generate_series(1, 20000) AS g`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE deliveries`); err != nil {
		t.Fatal(err)
	}
	// As the prepared statement runs it: its generic plan.
	text := genericPlan(t, pool, `SELECT id FROM deliveries WHERE status IN ('queued', 'retrying') AND next_attempt_at <= $1
		ORDER BY next_attempt_at FOR UPDATE SKIP LOCKED LIMIT 16`, "timestamptz")
	if !strings.Contains(text, "deliveries_claimable") || strings.Contains(text, "Seq Scan") {
		t.Errorf("the claim does not read through the claimable index:\n%s", text)
	}
}
