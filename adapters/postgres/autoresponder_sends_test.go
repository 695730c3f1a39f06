package postgres_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
)

func TestAutoresponderLimitsOnePerAddressPerFormPerHour(t *testing.T) {
	ctx := context.Background()
	limits := postgres.NewAutoresponderLimits(pgtest.Open(t))
	form, other := uuid.NewString(), uuid.NewString()
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	reserve := func(formID, addr, req string, at time.Time) bool {
		t.Helper()
		ok, err := limits.Reserve(ctx, formID, addr, req, at)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !reserve(form, "a", "r1", t0) {
		t.Fatal("the first autoresponder to an address is sent")
	}
	if reserve(form, "a", "r2", t0.Add(30*time.Minute)) {
		t.Error("a second one within the hour was allowed")
	}
	if !reserve(form, "a", "r1", t0.Add(time.Second)) {
		t.Error("a retried commit of the same request keeps its slot")
	}
	if !reserve(form, "b", "r3", t0.Add(time.Minute)) || !reserve(other, "a", "r4", t0.Add(time.Minute)) {
		t.Error("another address, or another form, has its own slot")
	}
	if !reserve(form, "a", "r5", t0.Add(61*time.Minute)) {
		t.Error("after the hour the address may get one again")
	}

	// Processes racing for one address: exactly one wins.
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := limits.Reserve(ctx, form, "race", "req-"+strconv.Itoa(i), t0)
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Errorf("%d concurrent reservations won, want exactly 1", wins.Load())
	}
}
