package postgres_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres"
)

// A submission that hands its deliveries to this process's workers commits
// them claimed by this process for the lease: no other process claims them
// while it lives, and once it stops beating they are released like any of
// its claims. A submission that hands nothing off leaves them claimable.
func TestHandedOffDeliveriesAreCommittedClaimedByTheProcess(t *testing.T) {
	g := newGroupEnv(t)
	events := postgres.NewEventStore()
	mine, other := postgres.NewDeliveryStore(g.pool, events), postgres.NewDeliveryStore(g.pool, events)
	subs, closeStore := postgres.NewSubmissionStore(g.pool, events, mine, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(closeStore)
	now := time.Now().UTC()
	for _, s := range []*postgres.DeliveryStore{mine, other} {
		if err := s.Heartbeat(g.ctx, now); err != nil {
			t.Fatal(err)
		}
	}

	handed, unclaimed := g.accepted(g.version, ""), g.accepted(g.version, "")
	handed.ClaimedUntil = now.Add(10 * time.Minute)
	if _, err := subs.Accept(g.ctx, handed); err != nil {
		t.Fatal(err)
	}
	if _, err := subs.Accept(g.ctx, unclaimed); err != nil {
		t.Fatal(err)
	}
	claimed, err := other.ClaimDue(g.ctx, now.Add(time.Second), 10*time.Minute, 16)
	if err != nil {
		t.Fatal(err)
	}
	if len(claimed) != 1 || claimed[0].DeliveryID != unclaimed.Queued[0].DeliveryID {
		t.Fatalf("another process claimed %+v; want only the delivery that was not handed off", claimed)
	}
	var until time.Time
	if err := g.pool.QueryRow(g.ctx, `SELECT claimed_until FROM deliveries WHERE id = $1`, handed.Queued[0].DeliveryID).Scan(&until); err != nil {
		t.Fatal(err)
	}
	if !until.Equal(handed.ClaimedUntil.Truncate(time.Microsecond)) {
		t.Fatalf("claimed until %v, want %v", until, handed.ClaimedUntil)
	}

	// This process dies: its heartbeat stops and the other releases its claims.
	later := now.Add(postgres.DeadAfter + time.Second)
	if err := other.Heartbeat(g.ctx, later); err != nil {
		t.Fatal(err)
	}
	if _, err := other.ReleaseDeadClaims(g.ctx, later); err != nil {
		t.Fatal(err)
	}
	claimed, err = other.ClaimDue(g.ctx, later, 10*time.Minute, 16)
	if err != nil {
		t.Fatal(err)
	}
	if len(claimed) != 1 || claimed[0].DeliveryID != handed.Queued[0].DeliveryID || claimed[0].Payload == nil {
		t.Fatalf("after the process died, claimed %+v; want its handed-off delivery with the payload", claimed)
	}
}

// A store cannot be built without the delivery store whose process its
// hand-offs are claimed for: written unclaimed, a handed-off delivery could
// be claimed by another process too and sent twice.
func TestASubmissionStoreNeedsTheProcessItsHandOffsAreClaimedFor(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("built a submission store with no delivery store to claim hand-offs for")
		}
	}()
	postgres.NewSubmissionStore(nil, postgres.NewEventStore(), nil, slog.New(slog.DiscardHandler))
}
