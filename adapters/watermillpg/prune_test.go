package watermillpg_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/adapters/watermillpg"
)

// pruneTopic is a topic whose tables the migrations create.
const pruneTopic = "form"

func TestPruneKeepsWhatTheSlowestGroupHasNotAcknowledged(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool := pgtest.Open(t)
	publishN(t, ctx, pool, 6)
	var events int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if n, err := watermillpg.Prune(ctx, pool, pruneTopic, watermillpg.UnconsumedRetention); err != nil || n != 0 {
		t.Fatalf("with no group and fresh messages nothing may be pruned: n=%d err=%v", n, err)
	}
	// Group "fast" acknowledged everything, group "slow" the first two messages.
	rows, err := pool.Query(ctx, `SELECT transaction_id::text, "offset" FROM watermill_form ORDER BY transaction_id, "offset"`)
	if err != nil {
		t.Fatal(err)
	}
	type pos struct {
		tx  string
		off int64
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pos, error) {
		var p pos
		return p, r.Scan(&p.tx, &p.off)
	})
	if err != nil || len(all) != 6 {
		t.Fatalf("messages: %v %v", all, err)
	}
	for group, p := range map[string]pos{"fast": all[5], "slow": all[1]} {
		if _, err := pool.Exec(ctx, `INSERT INTO watermill_offsets_form (consumer_group, offset_acked, last_processed_transaction_id)
			VALUES ($1, $2, $3::xid8)`, group, p.off, p.tx); err != nil {
			t.Fatal(err)
		}
	}
	n, err := watermillpg.Prune(ctx, pool, pruneTopic, watermillpg.UnconsumedRetention)
	if err != nil || n != 2 {
		t.Fatalf("pruned %d (err %v), want the 2 messages both groups acknowledged", n, err)
	}
	var left int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM watermill_form`).Scan(&left); err != nil || left != 4 {
		t.Fatalf("%d messages left (err %v), want 4", left, err)
	}
	var after int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&after); err != nil || after != events {
		t.Fatalf("pruning must never touch the event store: %d events, %d before (err %v)", after, events, err)
	}
}

// publishN publishes n messages to the prune topic, one transaction each,
// as the event store does.
func publishN(t *testing.T, ctx context.Context, pool *pgxpool.Pool, n int) {
	t.Helper()
	for v := 0; v < n; v++ {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			pub, err := wsql.NewPublisher(wsql.TxFromPgx(tx), wsql.PublisherConfig{SchemaAdapter: wsql.DefaultPostgreSQLSchema{}}, watermill.NopLogger{})
			if err != nil {
				return err
			}
			return pub.Publish(pruneTopic, message.NewMessage(watermill.NewUUID(), []byte(strconv.Itoa(v))))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func countMessages(t *testing.T, ctx context.Context, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM watermill_form`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A backlog larger than a chunk is pruned whole, a chunk per statement.
func TestPruneDeletesAnAcknowledgedBacklogInChunks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool := pgtest.Open(t)
	publishN(t, ctx, pool, 7)
	if _, err := pool.Exec(ctx, `INSERT INTO watermill_offsets_form (consumer_group, offset_acked, last_processed_transaction_id)
		SELECT 'only', "offset", transaction_id FROM watermill_form ORDER BY transaction_id DESC, "offset" DESC LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	n, err := watermillpg.PruneInChunks(ctx, pool, pruneTopic, 2, watermillpg.UnconsumedRetention)
	if err != nil || n != 7 {
		t.Fatalf("pruned %d (err %v), want all 7 acknowledged messages in chunks of 2", n, err)
	}
	if left := countMessages(t, ctx, pool); left != 0 {
		t.Fatalf("%d messages left, want none", left)
	}
}

// With no consumer group, messages past UnconsumedRetention go, oldest
// first, and the walk stops at the first newer one.
func TestPruneDeletesUnconsumedMessagesPastTheirRetention(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool := pgtest.Open(t)
	publishN(t, ctx, pool, 6)
	if _, err := pool.Exec(ctx, `UPDATE watermill_form SET created_at = LOCALTIMESTAMP - $1::interval
		WHERE "offset" IN (SELECT "offset" FROM watermill_form ORDER BY transaction_id, "offset" LIMIT 3)`,
		(watermillpg.UnconsumedRetention + time.Hour).String()); err != nil {
		t.Fatal(err)
	}
	n, err := watermillpg.PruneInChunks(ctx, pool, pruneTopic, 2, watermillpg.UnconsumedRetention)
	if err != nil || n != 3 {
		t.Fatalf("pruned %d (err %v), want the 3 messages past the retention", n, err)
	}
	if left := countMessages(t, ctx, pool); left != 3 {
		t.Fatalf("%d messages left, want the 3 recent ones", left)
	}
}

// A shorter retention (FORMD_UNREAD_MESSAGE_RETENTION) prunes unread
// messages past it and keeps the newer ones; 0 prunes every unread message
// committed before the prune.
func TestPruneKeepsUnconsumedMessagesForTheRetentionItIsGiven(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool := pgtest.Open(t)
	publishN(t, ctx, pool, 4)
	if _, err := pool.Exec(ctx, `UPDATE watermill_form SET created_at = LOCALTIMESTAMP - interval '2 hours'
		WHERE "offset" IN (SELECT "offset" FROM watermill_form ORDER BY transaction_id, "offset" LIMIT 2)`); err != nil {
		t.Fatal(err)
	}
	n, err := watermillpg.Prune(ctx, pool, pruneTopic, time.Hour)
	if err != nil || n != 2 {
		t.Fatalf("pruned %d (err %v) with an hour's retention, want the 2 messages two hours old", n, err)
	}
	if n, err := watermillpg.Prune(ctx, pool, pruneTopic, 0); err != nil || n != 2 {
		t.Fatalf("pruned %d (err %v) with no retention, want the 2 left", n, err)
	}
	if left := countMessages(t, ctx, pool); left != 0 {
		t.Fatalf("%d messages left, want none", left)
	}
}
