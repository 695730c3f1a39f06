package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
)

// After an outage a live process releases the claims it holds no worker
// for (a claim whose answer was lost), and keeps those it does: the released
// deliveries are due again at once, for any process, and no other process's
// claim is touched.
func TestAProcessReleasesItsClaimsExceptThoseItHolds(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	events := postgres.NewEventStore()
	mine, other := postgres.NewDeliveryStore(pool, events), postgres.NewDeliveryStore(pool, events)
	t0 := time.Now().UTC().Truncate(time.Second)
	for range 4 {
		if _, err := pool.Exec(ctx, `INSERT INTO deliveries (id, verification_id, kind, status, attempts, next_attempt_at, updated_at)
			VALUES ($1, $2, 'account_verification', 'queued', 0, $3, $3)`, uuid.NewString(), uuid.NewString(), t0); err != nil {
			t.Fatal(err)
		}
	}
	othersClaim, err := other.ClaimDue(ctx, t0, 10*time.Minute, 1)
	if err != nil || len(othersClaim) != 1 {
		t.Fatalf("the other process's claim = %v, %v", othersClaim, err)
	}
	claimed, err := mine.ClaimDue(ctx, t0, 10*time.Minute, 16)
	if err != nil || len(claimed) != 3 {
		t.Fatalf("claim = %v, %v", claimed, err)
	}
	held := claimed[0].DeliveryID

	later := t0.Add(time.Minute)
	n, err := mine.ReleaseClaimsExcept(ctx, later, []string{held})
	if err != nil || n != 2 {
		t.Fatalf("released %d, %v; want the 2 claims not held", n, err)
	}
	again, err := other.ClaimDue(ctx, later, 10*time.Minute, 16)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range again {
		got = append(got, c.DeliveryID)
	}
	want := []string{claimed[1].DeliveryID, claimed[2].DeliveryID}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("claimable after the release: %v; want the two not held, %v", got, want)
	}

	// Holding nothing releases every claim of this process, and only those.
	if n, err := mine.ReleaseClaimsExcept(ctx, later, nil); err != nil || n != 1 {
		t.Fatalf("released %d, %v holding nothing; want the 1 claim left", n, err)
	}
	var othersLeft int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM deliveries WHERE claimed_by IS NOT NULL`).Scan(&othersLeft); err != nil {
		t.Fatal(err)
	}
	if othersLeft != 3 {
		t.Fatalf("%d deliveries claimed after this process released its own; want the other process's 3", othersLeft)
	}
}
