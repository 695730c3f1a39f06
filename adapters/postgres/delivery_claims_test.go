package postgres_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/application"
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

// A claim holds its delivery for the lease and leaves when it was due as it
// was: next_attempt_at is indexed, and a claim that moved it was a non-HOT
// update writing an entry into each of the table's indexes (the costliest
// delivery statement in the bench). PostgreSQL's own counters must show the
// claim as a HOT update.
func TestAClaimIsAHotUpdateThatHoldsItsDeliveryForTheLease(t *testing.T) {
	ctx := context.Background()
	// One connection, so the statistics read below are the claim's.
	cfg := pgtest.Open(t).Config()
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := postgres.NewDeliveryStore(pool, postgres.NewEventStore())
	due := time.Now().UTC().Truncate(time.Second)
	id := uuid.NewString()
	if _, err := pool.Exec(ctx, `INSERT INTO deliveries (id, verification_id, kind, status, attempts, next_attempt_at, updated_at)
		VALUES ($1, $2, 'account_verification', 'queued', 0, $3, $3)`, id, uuid.NewString(), due); err != nil {
		t.Fatal(err)
	}
	hotUpdates := func() int64 {
		t.Helper()
		if _, err := pool.Exec(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := pool.QueryRow(ctx, `SELECT n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'deliveries'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := hotUpdates()
	lease := 10 * time.Minute
	if got, err := store.ClaimDue(ctx, due, lease, 16); err != nil || len(got) != 1 {
		t.Fatalf("claim = %v, %v", got, err)
	}
	if after := hotUpdates(); after != before+1 {
		t.Errorf("HOT updates of deliveries went from %d to %d over one claim, want one more", before, after)
	}
	var next time.Time
	if err := pool.QueryRow(ctx, `SELECT next_attempt_at FROM deliveries WHERE id = $1`, id).Scan(&next); err != nil || !next.Equal(due) {
		t.Errorf("next_attempt_at after the claim = %v (%v), want %v as it was", next, err, due)
	}
	if got, err := store.ClaimDue(ctx, due.Add(lease-time.Second), lease, 16); err != nil || len(got) != 0 {
		t.Errorf("claimed again within the lease: %v, %v", got, err)
	}
	if got, err := store.ClaimDue(ctx, due.Add(lease), lease, 16); err != nil || len(got) != 1 {
		t.Errorf("not claimable once the lease has passed: %v, %v", got, err)
	}
}

// A delivery an older formd claimed kept its lease in next_attempt_at. When
// that process is dead, the release makes it due at once, as before.
func TestAClaimMadeTheOldWayIsReleasedDueNow(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	store := postgres.NewDeliveryStore(pool, postgres.NewEventStore())
	now := time.Now().UTC().Truncate(time.Second)
	dead := uuid.NewString()
	if _, err := pool.Exec(ctx, `INSERT INTO delivery_workers (instance_id, seen_at) VALUES ($1, $2)`, dead, now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO deliveries (id, verification_id, kind, status, attempts, next_attempt_at, updated_at, claimed_by)
		VALUES ($1, $2, 'account_verification', 'queued', 0, $3, $3, $4)`, uuid.NewString(), uuid.NewString(), now.Add(9*time.Minute), dead); err != nil {
		t.Fatal(err)
	}
	if n, err := store.ReleaseDeadClaims(ctx, now); err != nil || n != 1 {
		t.Fatalf("released %d, %v; want 1", n, err)
	}
	if got, err := store.ClaimDue(ctx, now, 10*time.Minute, 16); err != nil || len(got) != 1 {
		t.Errorf("after the release: claimed %v, %v; want the delivery, due now", got, err)
	}
}

// A claim brings each delivery's sealed payload with it,
// so the claimer reads no payload afterwards: a submission's delivery comes
// with its payload as stored; a verification mail, which has none, and a
// delivery whose payload was shredded come without one.
func TestAClaimBringsEachDeliverysSealedPayload(t *testing.T) {
	g := newGroupEnv(t)
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore())
	sub := g.accepted(g.version, "")
	g.accept(t, sub)
	shredded := g.accepted(g.version, "")
	g.accept(t, shredded)
	if _, err := g.pool.Exec(g.ctx, `DELETE FROM submission_payloads WHERE submission_id = $1`, shredded.Accepted.SubmissionID); err != nil {
		t.Fatal(err)
	}
	verification := uuid.NewString()
	if _, err := g.pool.Exec(g.ctx, `INSERT INTO deliveries (id, verification_id, kind, status, attempts, next_attempt_at, updated_at)
		VALUES ($1, $2, 'account_verification', 'queued', 0, now(), now())`, verification, uuid.NewString()); err != nil {
		t.Fatal(err)
	}
	claimed, err := store.ClaimDue(g.ctx, time.Now().Add(time.Second), time.Minute, 16)
	if err != nil || len(claimed) != 3 {
		t.Fatalf("ClaimDue = %d claimed, %v; want 3", len(claimed), err)
	}
	got := map[string]*application.SealedPayload{}
	for _, c := range claimed {
		got[c.DeliveryID] = c.Payload
	}
	want := sub.Payload
	if p := got[sub.Queued[0].DeliveryID]; p == nil || p.KeyID != want.KeyID || !bytes.Equal(p.WrappedKey, want.WrappedKey) ||
		!bytes.Equal(p.Ciphertext, want.Ciphertext) {
		t.Errorf("the submission's delivery came with payload %+v, want the one stored", p)
	}
	if p := got[shredded.Queued[0].DeliveryID]; p != nil {
		t.Errorf("a delivery whose payload was shredded came with %+v", p)
	}
	if p, ok := got[verification]; !ok || p != nil {
		t.Errorf("the verification mail came with %+v (claimed: %v), want no payload", p, ok)
	}
}
