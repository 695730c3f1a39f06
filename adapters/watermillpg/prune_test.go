package watermillpg_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/adapters/watermillpg"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
)

func TestPruneKeepsWhatTheSlowestGroupHasNotAcknowledged(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool := pgtest.Open(t)
	store := postgres.NewEventStore()
	stream := uuid.NewString()
	for v := 0; v < 6; v++ { // six transactions, one message each
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			return store.Append(ctx, tx, time.Now(), postgres.StreamEvents{StreamType: postgres.StreamForm, StreamID: stream,
				ExpectedVersion: v, Events: []postgres.Event{delivery.Succeeded{Attempt: v}}, Metadata: application.Metadata{}})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n, err := watermillpg.Prune(ctx, pool, postgres.StreamForm); err != nil || n != 0 {
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
	n, err := watermillpg.Prune(ctx, pool, postgres.StreamForm)
	if err != nil || n != 2 {
		t.Fatalf("pruned %d (err %v), want the 2 messages both groups acknowledged", n, err)
	}
	var left int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM watermill_form`).Scan(&left); err != nil || left != 4 {
		t.Fatalf("%d messages left (err %v), want 4", left, err)
	}
	var events int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = $1`, stream).Scan(&events); err != nil || events != 6 {
		t.Fatalf("pruning must never touch the event store: %d events (err %v)", events, err)
	}
}
