package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/adapters/postgres/pgtest"
)

// The group commit's one-round-trip path relies on this: a pipeline sent
// outside an explicit transaction runs as one implicit transaction, so a
// failing statement undoes the ones before it.
func TestPipelineOutsideATransactionIsAtomic(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	if _, err := pool.Exec(ctx, `CREATE TABLE pipeline_probe (n int)`); err != nil {
		t.Fatal(err)
	}
	for _, warm := range []bool{false, true} { // before and after statements are cached
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO pipeline_probe VALUES (1)`)
		b.Queue(`SELECT 1 / 0`)
		if err := pool.SendBatch(ctx, b).Close(); err == nil {
			t.Fatalf("warm=%v: a division by zero must fail the pipeline", warm)
		}
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pipeline_probe`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("warm=%v: %d rows survived the failed pipeline (err %v)", warm, n, err)
		}
	}
}
