package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
)

// Settling a delivery must look only at its own submission's deliveries and
// payload, whatever the size of the tables, and be planned once per
// connection. The bench found the statement scanning every delivery in each
// call (a hashed EXISTS chosen while the table was small and kept by the
// generic plan of the prepared statement), and later the plan cache planning
// it afresh on about half of its calls unless its settings come before it in
// the record's transaction.
func TestSettlingReadsOnlyTheSubmissionsOwnDeliveries(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	// A day's deliveries, one in ten failed; size is how many.
	addDeliveries := func(size int) {
		if _, err := pool.Exec(ctx, `INSERT INTO deliveries (id, submission_id, form_id, kind, status, attempts, updated_at)
			SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'email',
			       CASE WHEN g % 10 = 0 THEN 'failed' ELSE 'succeeded' END, 1, now()
			FROM generate_series(1, $1::int) AS g`, size); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `INSERT INTO submission_payloads (submission_id, form_id, wrapped_key, ciphertext, pending, key_id)
			SELECT gen_random_uuid(), gen_random_uuid(), '\x00', '\x00', 1, 'k' FROM generate_series(1, $1::int)`, size); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `VACUUM ANALYZE deliveries, submission_payloads`); err != nil {
			t.Fatal(err)
		}
	}
	conn, plans := explainedConn(t, pool)
	settle := func() {
		// Two submissions: one with its last delivery final (shredded), one
		// with a delivery still pending (counted down).
		var last, other string
		if err := conn.QueryRow(ctx, `
			WITH p AS (INSERT INTO submission_payloads (submission_id, form_id, wrapped_key, ciphertext, pending, key_id)
			           VALUES (gen_random_uuid(), gen_random_uuid(), '\x00', '\x00', 1, 'k'),
			                  (gen_random_uuid(), gen_random_uuid(), '\x00', '\x00', 2, 'k')
			           RETURNING submission_id, pending)
			SELECT (SELECT submission_id::text FROM p WHERE pending = 1), (SELECT submission_id::text FROM p WHERE pending = 2)`).
			Scan(&last, &other); err != nil {
			t.Fatal(err)
		}
		b := &pgx.Batch{} // as a record sends it: in its transaction, after its outcomes
		postgres.QueueSettle(b, []string{last, other}, []int32{1, 1})
		results := conn.SendBatch(ctx, b)
		defer results.Close()
		if _, err := results.Exec(); err != nil {
			t.Fatal(err)
		}
		rows, err := results.Query()
		if err != nil {
			t.Fatal(err)
		}
		deleted := map[string]bool{}
		for rows.Next() {
			var id string
			var pending int
			var failed, gone, archived bool
			if err := rows.Scan(&id, &pending, &failed, &gone, &archived); err != nil {
				t.Fatal(err)
			}
			deleted[id] = gone
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(deleted) != 2 || !deleted[last] || deleted[other] {
			t.Fatalf("settled %v: want %s deleted and %s counted down", deleted, last, other)
		}
	}
	addDeliveries(20)
	settle() // planned on nearly empty tables
	addDeliveries(20000)
	settle()
	settle()
	got := plans("submission_payloads p")
	if len(got) != 3 {
		t.Fatalf("auto_explain reported %d plans of the settling statement, want 3:\n%s", len(got), strings.Join(got, "\n----\n"))
	}
	for i, plan := range got {
		if strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Bitmap Heap Scan") {
			t.Errorf("settle %d scans a table:\n%s", i+1, plan)
		}
		if !strings.Contains(plan, "deliveries_submission") || !strings.Contains(plan, "submission_payloads_pkey") {
			t.Errorf("settle %d does not read deliveries by submission and payloads by key:\n%s", i+1, plan)
		}
	}
	if generic, custom := preparedPlans(t, conn, postgres.SettlePayloads); generic != 3 || custom != 0 {
		t.Fatalf("the settle ran on %d generic and %d custom plans, want its generic plan each time (3): without its settings the plan cache plans it afresh whenever it judges the generic plan costlier", generic, custom)
	}
	settingEndedWithItsTransaction(t, conn, "the settle", "enable_bitmapscan")
}
