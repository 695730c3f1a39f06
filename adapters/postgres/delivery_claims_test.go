package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
)

// A process killed mid-claim (SIGKILL) must not hold its deliveries for the
// whole lease: once its heartbeat stops, another process releases and sends
// them. A live process's claims are never taken, however slow its sends.
func TestClaimsOfAProcessThatStoppedAreReleased(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	events := postgres.NewEventStore()
	dead, alive := postgres.NewDeliveryStore(pool, events), postgres.NewDeliveryStore(pool, events)
	t0 := time.Now().UTC().Truncate(time.Second)
	id := uuid.NewString()
	if _, err := pool.Exec(ctx, `INSERT INTO deliveries (id, verification_id, kind, status, attempts, next_attempt_at, updated_at)
		VALUES ($1, $2, 'account_verification', 'queued', 0, $3, $3)`, id, uuid.NewString(), t0); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*postgres.DeliveryStore{dead, alive} {
		if err := s.Heartbeat(ctx, t0); err != nil {
			t.Fatal(err)
		}
	}
	claimed, err := dead.ClaimDue(ctx, t0, 10*time.Minute, 16)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim = %v, %v", claimed, err)
	}

	claimAt := func(at time.Time) int {
		t.Helper()
		if err := alive.Heartbeat(ctx, at); err != nil {
			t.Fatal(err)
		}
		if _, err := alive.ReleaseDeadClaims(ctx, at); err != nil {
			t.Fatal(err)
		}
		got, err := alive.ClaimDue(ctx, at, 10*time.Minute, 16)
		if err != nil {
			t.Fatal(err)
		}
		return len(got)
	}
	if n := claimAt(t0.Add(postgres.DeadAfter / 2)); n != 0 {
		t.Fatalf("a claim of a process that beat %v ago was taken", postgres.DeadAfter/2)
	}
	if err := dead.Heartbeat(ctx, t0.Add(postgres.DeadAfter/2)); err != nil { // still alive here
		t.Fatal(err)
	}
	if n := claimAt(t0.Add(postgres.DeadAfter)); n != 0 {
		t.Fatal("a live process's claim was taken")
	}
	// The first process dies: no more heartbeats.
	if n := claimAt(t0.Add(postgres.DeadAfter/2 + postgres.DeadAfter + time.Second)); n != 1 {
		t.Fatalf("claims of a dead process: %d taken, want the 1 it held", n)
	}
}

// A claimed delivery carries the time it was queued: a webhook's
// submittedAt and a sheet row's time are built from it (they were
// 0001-01-01T00:00:00Z when the claim left it out).
func TestAClaimedDeliveryCarriesTheTimeItWasQueued(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	store := postgres.NewDeliveryStore(pool, postgres.NewEventStore())
	queuedAt := time.Date(2026, 11, 23, 9, 30, 15, 0, time.UTC)
	if _, err := pool.Exec(ctx, `INSERT INTO deliveries (id, verification_id, kind, status, attempts, next_attempt_at, updated_at, created_at)
		VALUES ($1, $2, 'account_verification', 'queued', 0, $3, $3, $3)`, uuid.NewString(), uuid.NewString(), queuedAt); err != nil {
		t.Fatal(err)
	}
	claimed, err := store.ClaimDue(ctx, queuedAt.Add(time.Minute), 10*time.Minute, 16)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim = %v, %v", claimed, err)
	}
	if !claimed[0].At.Equal(queuedAt) {
		t.Errorf("claimed At = %v, want %v", claimed[0].At, queuedAt)
	}
}
