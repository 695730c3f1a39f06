package events

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
)

var errDatabaseAway = errors.New("connection refused")

// retryRecordsAfter shortens the recorder's wait before a failed record is
// tried again, for the test.
func retryRecordsAfter(t *testing.T, d time.Duration) {
	first, most := recordRetryFirst, recordRetryMost
	recordRetryFirst, recordRetryMost = d, 4*d
	t.Cleanup(func() { recordRetryFirst, recordRetryMost = first, most })
}

// failingRecords makes the first n records fail.
func failingRecords(n int) func(int) error {
	return func(call int) error {
		if call <= n {
			return errDatabaseAway
		}
		return nil
	}
}

// The database is away when outcomes come to be recorded: the mails were
// sent, so the outcomes are kept and recorded, each once and in the order
// they came, as soon as the database answers; their slots are given back
// only then, and nothing is sent twice.
func TestOutcomesTheDatabaseDidNotTakeAreRecordedInOrderWhenItAnswers(t *testing.T) {
	retryRecordsAfter(t, time.Millisecond)
	const due = 10
	r, w := newRounds(due), newWakes()
	r.recordErr = failingRecords(3)
	run(t, r, w, 1) // one sender: the outcomes come in the order of the attempts
	waitFor(t, "every outcome recorded", func() bool { return len(r.recorded()) == due })

	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Equal(r.attempted, ids(due)) {
		t.Fatalf("attempted %v; want each delivery once", r.attempted)
	}
	if got := r.recordedLocked(); !slices.Equal(got, r.attempted) {
		t.Fatalf("recorded %v; want each outcome once, in the order attempted: %v", got, r.attempted)
	}
	if r.recordings < 4 {
		t.Fatalf("%d records; want the 3 that failed and at least one that landed", r.recordings)
	}
	capacity := claimPerSender
	for i, at := range r.freeAtRecord {
		if free, out := at[0], at[1]; free != capacity-out {
			t.Fatalf("record %d: %d slots free with %d outcomes unrecorded; want %d: a slot is given back only once its outcome is recorded",
				i+1, free, out, capacity-out)
		}
	}
}

// While outcomes wait for the database, their slots stay taken: the
// claimer takes no more than the senders have room for, the senders do not
// block, and the pipeline still returns at shutdown.
func TestWhileOutcomesWaitNoMoreWorkIsTakenThanTheSlots(t *testing.T) {
	retryRecordsAfter(t, time.Millisecond)
	r, w := newRounds(3*claimPerSender), newWakes()
	away := true
	r.recordErr = func(int) error {
		if away {
			return errDatabaseAway
		}
		return nil
	}
	run(t, r, w, 1)
	waitFor(t, "the slots' worth attempted", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.attempted) == claimPerSender
	})
	for range 3 {
		w.wake()
	}
	r.mu.Lock()
	if r.most > claimPerSender {
		r.mu.Unlock()
		t.Fatalf("%d claimed and unrecorded at once while records failed; want at most the %d slots", r.most, claimPerSender)
	}
	away = false // read under r.mu by Record
	r.mu.Unlock()
	w.wake()
	waitFor(t, "everything recorded once the database answers", func() bool { return len(r.recorded()) == 3*claimPerSender })
}

// Shutting down while the database is away: the recorder keeps trying for
// the grace, and an outcome the database takes within it is recorded.
func TestShuttingDownRecordsOutcomesTheDatabaseTakesWithinTheGrace(t *testing.T) {
	retryRecordsAfter(t, time.Millisecond)
	r, w := newRounds(1), newWakes()
	failed := make(chan struct{}, 1)
	back := make(chan struct{})
	r.recordErr = func(int) error {
		select {
		case <-back:
			return nil
		default:
		}
		select {
		case failed <- struct{}{}:
		default:
		}
		return errDatabaseAway
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		runDeliveryPipeline(ctx, r, r.handOff, w.due, 1, time.Minute, quietLog())
	}()
	<-failed
	cancel()
	close(back)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the pipeline did not return once its outcomes were recorded")
	}
	if got := r.recorded(); !slices.Equal(got, []string{"d00"}) {
		t.Fatalf("recorded %v at shutdown; want d00's outcome, taken within the grace", got)
	}
}

// A database that stays away past the grace does not hold up shutdown:
// the outcomes are logged as unrecorded and the pipeline returns.
func TestShuttingDownGivesUpOnRecordsAfterTheGrace(t *testing.T) {
	retryRecordsAfter(t, time.Millisecond)
	r, w := newRounds(2), newWakes()
	r.recordErr = func(int) error { return errDatabaseAway }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		runDeliveryPipeline(ctx, r, r.handOff, w.due, 1, 20*time.Millisecond, quietLog())
	}()
	waitFor(t, "a failed record", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.recordings > 0 })
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the pipeline did not return after the grace")
	}
	if got := r.recorded(); len(got) != 0 {
		t.Fatalf("recorded %v with the database away", got)
	}
}

// strayClaims stands in for the release of this process's stray claims.
type strayClaims struct {
	released chan []string
}

func (s *strayClaims) Handle(_ context.Context, keep []string) (int, error) {
	slices.Sort(keep)
	s.released <- keep
	return 0, nil
}

func withStrays(r *rounds) *strayClaims {
	s := &strayClaims{released: make(chan []string, 8)}
	r.handOff.WithStrayClaims(s)
	return s
}

func (s *strayClaims) next(t *testing.T) []string {
	t.Helper()
	select {
	case keep := <-s.released:
		return keep
	case <-time.After(10 * time.Second):
		t.Fatal("no release of stray claims")
		return nil
	}
}

// blockAttempts holds every attempt until the returned release is called.
func blockAttempts(r *rounds) (release func()) {
	hold := make(chan struct{})
	r.attempt = func(string) { <-hold }
	return sync.OnceFunc(func() { close(hold) })
}

// A claim that failed may have claimed deliveries whose answer was lost:
// once a claim succeeds again, the claimer releases this process's claims
// except the deliveries its workers hold, which go on.
func TestAfterAFailedClaimTheClaimsNoWorkerHoldsAreReleased(t *testing.T) {
	r, w := newRounds(0), newWakes()
	strays := withStrays(r)
	release := blockAttempts(r)
	defer release()
	r.claimErr = errDatabaseAway
	run(t, r, w, 1)
	waitFor(t, "the failed claim", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.claims) == 1 })
	r.mu.Lock()
	r.claimErr = nil
	r.queue = ids(3)
	r.mu.Unlock()
	w.wake()
	if keep := strays.next(t); !slices.Equal(keep, ids(3)) {
		t.Fatalf("kept %v in the release; want the 3 deliveries the workers hold", keep)
	}
	release()
	waitFor(t, "the held deliveries recorded", func() bool { return len(r.recorded()) == 3 })
}

// A submission that reserved slots may have committed its deliveries
// claimed for this process and not yet handed them over: the release waits
// for it, and keeps what it hands.
func TestTheReleaseOfStrayClaimsWaitsForReservedHandOffs(t *testing.T) {
	before := settleWaitMost
	settleWaitMost = time.Hour
	t.Cleanup(func() { settleWaitMost = before })
	r, w := newRounds(0), newWakes()
	strays := withStrays(r)
	release := blockAttempts(r)
	defer release()
	r.claimErr = errDatabaseAway
	run(t, r, w, 1)
	waitFor(t, "a slot reserved", func() bool { return r.handOff.Reserve(1) })
	waitFor(t, "the failed claim", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.claims) == 1 })
	r.mu.Lock()
	r.claimErr = nil
	r.mu.Unlock()
	w.wake()
	waitFor(t, "reservations refused while stray claims wait", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.claims) == 2
	})
	r.handOff.Hand(application.DueDelivery{ClaimedDelivery: application.ClaimedDelivery{
		Queued: delivery.Queued{DeliveryID: "handed", Kind: delivery.KindEmail}}})
	if keep := strays.next(t); !slices.Equal(keep, []string{"handed"}) {
		t.Fatalf("kept %v in the release; want the delivery handed off by the reserving submission", keep)
	}
}

// A failed record says the database was away, when a submission's commit
// may have left claims no worker holds: the next claim that succeeds is
// followed by a release.
func TestAfterAFailedRecordTheClaimsNoWorkerHoldsAreReleased(t *testing.T) {
	retryRecordsAfter(t, time.Millisecond)
	r, w := newRounds(1), newWakes()
	strays := withStrays(r)
	r.recordErr = failingRecords(1)
	run(t, r, w, 1)
	waitFor(t, "the outcome recorded", func() bool { return len(r.recorded()) == 1 })
	w.wake()
	if keep := strays.next(t); len(keep) != 0 {
		t.Fatalf("kept %v; want nothing, every outcome being recorded", keep)
	}
}

// An outcome the database refuses while it takes others (a fault of that
// outcome's) holds up no other, and is kept rather than dropped: dropping
// it would send its delivery again.
func TestAnOutcomeTheDatabaseRefusesHoldsUpNoOther(t *testing.T) {
	retryRecordsAfter(t, time.Millisecond)
	const due = 6
	r, w := newRounds(due), newWakes()
	r.refuse, r.refuseErr = "d02", errors.New("refused")
	run(t, r, w, 1)
	waitFor(t, "every other outcome recorded", func() bool { return len(r.recorded()) == due-1 })
	// All but the refused outcome's slot given back: it is kept.
	waitFor(t, "the recorded outcomes' slots given back", func() bool { return r.handOff.Free() == claimPerSender-1 })
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.Contains(r.recordedLocked(), "d02") {
		t.Fatalf("recorded %v; want d02, which the database refuses, not among them", r.recordedLocked())
	}
	if !slices.Equal(r.attempted, ids(due)) {
		t.Fatalf("attempted %v; want each delivery once", r.attempted)
	}
}

// A claim that outlived its lease while the database was away is claimed
// again by this process, whose worker still holds the delivery (its outcome
// waiting to be recorded): it is not attempted a second time.
func TestADeliveryClaimedAgainWhileHeldIsNotAttemptedTwice(t *testing.T) {
	r, w := newRounds(1), newWakes()
	release := blockAttempts(r)
	defer release()
	run(t, r, w, 3)
	waitFor(t, "d00 claimed", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.claims) == 1 })
	r.mu.Lock()
	r.queue = []string{"d00", "d01"} // d00's lease ended: due again
	r.mu.Unlock()
	w.wake()
	waitFor(t, "the second claim", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.claims) == 2 })
	release()
	waitFor(t, "d00 and d01 recorded", func() bool { return len(r.recorded()) == 2 })
	r.mu.Lock()
	defer r.mu.Unlock()
	attempted := slices.Clone(r.attempted)
	slices.Sort(attempted)
	if !slices.Equal(attempted, []string{"d00", "d01"}) {
		t.Fatalf("attempted %v; want d00 and d01 once each", r.attempted)
	}
}
