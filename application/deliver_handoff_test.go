package application

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// slots is an in-memory DeliveryHandOff: its free slots, and what was
// handed to the workers.
type slots struct {
	mu     sync.Mutex
	free   int
	handed []DueDelivery
}

// noHandOff has no free slot: every delivery is left for the workers to claim.
func noHandOff() *slots { return &slots{} }

func (s *slots) Reserve(n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n <= 0 || s.free < n {
		return false
	}
	s.free -= n
	return true
}

func (s *slots) Release(n int) {
	s.mu.Lock()
	s.free += n
	s.mu.Unlock()
}

func (s *slots) Hand(due ...DueDelivery) {
	s.mu.Lock()
	s.handed = append(s.handed, due...)
	s.mu.Unlock()
}

// uncounted counts no intake.
type uncounted struct{}

func (uncounted) Begin() {}
func (uncounted) End()   {}

// handingOffSubmitHandler is the submit use case handing off through handOff.
func handingOffSubmitHandler(forms *fakeForms, store SubmissionStore, handOff DeliveryHandOff, intake IntakeCounter) SubmitCommand {
	return NewSubmitHandler(forms, store, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{}, fixedClock{},
		noFloods{}, testQuotas, NopMetrics{}, noCaptchas(), noSpamChecks(), noUploads(), newMemoryTestInbox(), handOff, intake, nil)
}

// A submission whose deliveries fit in the workers' free slots commits them
// claimed for a lease and hands them, with its sealed payload, to the
// workers; its slots stay taken until an outcome is recorded.
func TestASubmissionHandsItsDeliveriesToTheWorkersWithItsPayload(t *testing.T) {
	handOff := &slots{free: 4}
	store := &fakeStore{}
	h := handingOffSubmitHandler(&fakeForms{cached: liveForm(1), fresh: liveForm(1)}, store, handOff, uncounted{})
	out, err := h.Handle(context.Background(), post("https://example.com"))
	if err != nil {
		t.Fatal(err)
	}
	if len(store.accepted) != 1 || !store.accepted[0].ClaimedUntil.Equal(fixedClock{}.Now().Add(DeliveryLease)) {
		t.Fatalf("committed %+v; want the deliveries claimed until a lease from now", store.accepted)
	}
	sub := store.accepted[0]
	if len(handOff.handed) == 0 {
		t.Fatal("nothing was handed to the workers")
	}
	if d := handOff.handed[0]; d.DeliveryID != out.Response.DeliveryID || d.Payload == nil ||
		string(d.Payload.Ciphertext) != string(sub.Payload.Ciphertext) || d.Attempts != 0 || d.Deadline.IsZero() {
		t.Fatalf("handed %+v; want delivery %s with the submission's sealed payload and a deadline", d, out.Response.DeliveryID)
	}
	if free := handOff.free; free != 4-len(sub.Queued) {
		t.Fatalf("%d slots free; want %d (the handed deliveries hold theirs until recorded)", free, 4-len(sub.Queued))
	}
}

// A submission that finds no room, or whose commit fails, claims nothing
// and hands nothing: a failed commit gives its slots back.
func TestASubmissionHandsNothingOffWithoutRoomOrWithoutACommit(t *testing.T) {
	forms := &fakeForms{cached: liveForm(1), fresh: liveForm(1)}

	full := noHandOff()
	store := &fakeStore{}
	h := handingOffSubmitHandler(forms, store, full, uncounted{})
	if _, err := h.Handle(context.Background(), post("https://example.com")); err != nil {
		t.Fatal(err)
	}
	if len(store.accepted) != 1 || !store.accepted[0].ClaimedUntil.IsZero() || len(full.handed) != 0 {
		t.Fatalf("with no free slot: committed %+v, handed %d; want the deliveries unclaimed and nothing handed", store.accepted, len(full.handed))
	}

	roomy := &slots{free: 4}
	failing := &failingStore{err: errors.New("connection reset")}
	h = handingOffSubmitHandler(forms, failing, roomy, uncounted{})
	if _, err := h.Handle(context.Background(), post("https://example.com")); err == nil {
		t.Fatal("a failed commit answered success")
	}
	if failing.claimed == 0 || roomy.free != 4 || len(roomy.handed) != 0 {
		t.Fatalf("after a failed commit that claimed %d: %d of 4 slots free, %d handed; want all free and none handed",
			failing.claimed, roomy.free, len(roomy.handed))
	}
}

// failingStore refuses every commit, noting how many deliveries it was
// asked to write claimed.
type failingStore struct {
	err     error
	claimed int
}

func (s *failingStore) Accept(_ context.Context, a AcceptedSubmission) (Acceptance, error) {
	if !a.ClaimedUntil.IsZero() {
		s.claimed += len(a.Queued)
	}
	return Acceptance{}, s.err
}

func (s *failingStore) IdempotentResponse(context.Context, string, string) (*StoredResponse, error) {
	return nil, nil
}
