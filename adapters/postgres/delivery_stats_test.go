package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
)

// The queue's gauges count what is not final, whatever process claimed it,
// and the oldest due age ignores deliveries that are not due yet (a retry
// waiting, a claim being attempted).
func TestQueueStatsCountPendingDeliveriesAndTheOldestDue(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	store := postgres.NewDeliveryStore(pool, postgres.NewEventStore())
	if s, err := store.QueueStats(ctx); err != nil || s != (postgres.DeliveryQueueStats{}) {
		t.Fatalf("an empty queue: %+v, %v", s, err)
	}
	for _, d := range []struct {
		status string
		due    string // relative to the database's now()
	}{
		{"queued", "-90 seconds"},   // the oldest due
		{"queued", "-5 seconds"},    // due
		{"queued", "+10 minutes"},   // claimed: its lease runs out then
		{"retrying", "-30 seconds"}, // due for its retry
		{"retrying", "+1 hour"},     // waiting for its retry
		{"succeeded", "-2 hours"},   // final: in the log, not the queue
		{"failed", "-3 hours"},
	} {
		if _, err := pool.Exec(ctx, `INSERT INTO deliveries (id, verification_id, kind, status, attempts, next_attempt_at, updated_at)
			VALUES ($1, $2, 'account_verification', $3, 0, now() + $4::interval, now())`,
			uuid.NewString(), uuid.NewString(), d.status, d.due); err != nil {
			t.Fatal(err)
		}
	}
	s, err := store.QueueStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Queued != 3 || s.Retrying != 2 {
		t.Errorf("queued %d, retrying %d; want 3 and 2", s.Queued, s.Retrying)
	}
	if s.OldestDue < 90*time.Second || s.OldestDue > 100*time.Second {
		t.Errorf("oldest due %v, want about 90s", s.OldestDue)
	}
}
