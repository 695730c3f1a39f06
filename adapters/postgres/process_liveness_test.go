package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
)

// After an outage every process's heartbeat is stale: the first to reach
// the database again must not take the others for dead and release their
// claims (a live process's unrecorded outcomes would be sent again). A
// process whose own heartbeat failed waits DeadAfter before judging; a
// process that stays silent past that is released as before.
func TestAProcessThatCouldNotReachTheDatabaseReleasesNoOneForAWhile(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	events := postgres.NewEventStore()
	other := postgres.NewDeliveryStore(pool, events)
	mine := postgres.NewProcessLiveness(postgres.NewDeliveryStore(pool, events))
	t0 := time.Now().UTC().Truncate(time.Second)
	if _, err := pool.Exec(ctx, `INSERT INTO deliveries (id, verification_id, kind, status, attempts, next_attempt_at, updated_at)
		VALUES ($1, $2, 'account_verification', 'queued', 0, $3, $3)`, uuid.NewString(), uuid.NewString(), t0); err != nil {
		t.Fatal(err)
	}
	if err := other.Heartbeat(ctx, t0); err != nil {
		t.Fatal(err)
	}
	if claimed, err := other.ClaimDue(ctx, t0, 10*time.Minute, 1); err != nil || len(claimed) != 1 {
		t.Fatalf("claim = %v, %v", claimed, err)
	}

	// The database is away for this process (its heartbeat fails) ...
	away, cancel := context.WithCancel(ctx)
	cancel()
	outage := t0.Add(postgres.DeadAfter)
	if err := mine.Heartbeat(away, outage); err == nil {
		t.Fatal("a heartbeat with a cancelled context succeeded")
	}
	// ... and answers again, the other process not having beaten yet.
	back := outage.Add(postgres.HeartbeatInterval)
	if err := mine.Heartbeat(ctx, back); err != nil {
		t.Fatal(err)
	}
	if n, err := mine.ReleaseDeadClaims(ctx, back); err != nil || n != 0 {
		t.Fatalf("released %d, %v just after an outage; want none", n, err)
	}
	// The other process stays silent: after DeadAfter it counts as dead.
	later := outage.Add(postgres.DeadAfter)
	if err := mine.Heartbeat(ctx, later); err != nil {
		t.Fatal(err)
	}
	if n, err := mine.ReleaseDeadClaims(ctx, later); err != nil || n != 1 {
		t.Fatalf("released %d, %v once the other process was silent past DeadAfter after the outage; want its 1 claim", n, err)
	}
}
