package application

import (
	"context"
	"errors"
	"testing"
)

// handingOffSubmitHandler is the submit use case handing off through handOff.
func handingOffSubmitHandler(forms *fakeForms, store SubmissionStore, handOff *DeliveryHandOff) SubmitCommand {
	return NewSubmitHandler(forms, store, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{}, fixedClock{}, freeAutoresponders{},
		noFloods{}, testQuotas, NopMetrics{}, noCaptchas(), noUploads(), newMemoryTestInbox(), handOff)
}

// A submission whose deliveries fit in the workers' free slots commits them
// claimed for a lease and hands them, with its sealed payload, to the
// workers; its slots stay taken until an outcome is recorded.
func TestASubmissionHandsItsDeliveriesToTheWorkersWithItsPayload(t *testing.T) {
	handOff := NewDeliveryHandOff()
	work := handOff.Open(4)
	store := &fakeStore{}
	h := handingOffSubmitHandler(&fakeForms{cached: liveForm(1), fresh: liveForm(1)}, store, handOff)
	out, err := h.Handle(context.Background(), post("https://example.com"))
	if err != nil {
		t.Fatal(err)
	}
	if len(store.accepted) != 1 || !store.accepted[0].ClaimedUntil.Equal(fixedClock{}.Now().Add(DeliveryLease)) {
		t.Fatalf("committed %+v; want the deliveries claimed until a lease from now", store.accepted)
	}
	sub := store.accepted[0]
	select {
	case d := <-work:
		if d.DeliveryID != out.Response.DeliveryID || d.Payload == nil || string(d.Payload.Ciphertext) != string(sub.Payload.Ciphertext) ||
			d.Attempts != 0 || d.Deadline.IsZero() {
			t.Fatalf("handed %+v; want delivery %s with the submission's sealed payload and a deadline", d, out.Response.DeliveryID)
		}
	default:
		t.Fatal("nothing was handed to the workers")
	}
	if free := handOff.Free(); free != 4-len(sub.Queued) {
		t.Fatalf("%d slots free; want %d (the handed deliveries hold theirs until recorded)", free, 4-len(sub.Queued))
	}
}

// A submission that finds no room, or whose commit fails, claims nothing
// and hands nothing: a failed commit gives its slots back.
func TestASubmissionHandsNothingOffWithoutRoomOrWithoutACommit(t *testing.T) {
	forms := &fakeForms{cached: liveForm(1), fresh: liveForm(1)}

	full := NewDeliveryHandOff()
	work := full.Open(0)
	store := &fakeStore{}
	h := handingOffSubmitHandler(forms, store, full)
	if _, err := h.Handle(context.Background(), post("https://example.com")); err != nil {
		t.Fatal(err)
	}
	if len(store.accepted) != 1 || !store.accepted[0].ClaimedUntil.IsZero() || len(work) != 0 {
		t.Fatalf("with no free slot: committed %+v, handed %d; want the deliveries unclaimed and nothing handed", store.accepted, len(work))
	}

	roomy := NewDeliveryHandOff()
	work = roomy.Open(4)
	failing := &failingStore{err: errors.New("connection reset")}
	h = handingOffSubmitHandler(forms, failing, roomy)
	if _, err := h.Handle(context.Background(), post("https://example.com")); err == nil {
		t.Fatal("a failed commit answered success")
	}
	if failing.claimed == 0 || roomy.Free() != 4 || len(work) != 0 {
		t.Fatalf("after a failed commit that claimed %d: %d of 4 slots free, %d handed; want all free and none handed",
			failing.claimed, roomy.Free(), len(work))
	}
}

// failingStore refuses every commit, noting how many deliveries it was
// asked to write claimed.
type failingStore struct {
	err     error
	claimed int
}

func (s *failingStore) Accept(_ context.Context, a AcceptedSubmission) (*StoredResponse, error) {
	if !a.ClaimedUntil.IsZero() {
		s.claimed += len(a.Queued)
	}
	return nil, s.err
}

func (s *failingStore) IdempotentResponse(context.Context, string, string) (*StoredResponse, error) {
	return nil, nil
}

// Reserve takes all of what it asks for or nothing; Take may overdraw (a
// claim that asked for the slots free before submissions reserved some);
// after Close nothing is reserved or handed.
func TestTheHandOffCountsSlots(t *testing.T) {
	h := NewDeliveryHandOff()
	if h.Reserve(1) {
		t.Fatal("reserved before the workers opened the hand-off")
	}
	work := h.Open(3)
	if !h.Reserve(2) || h.Reserve(2) || h.Free() != 1 {
		t.Fatalf("after reserving 2 of 3 and asking 2 more: %d free; want 1 and the second refused", h.Free())
	}
	h.Take(3)
	if h.Free() != -2 || h.Reserve(1) {
		t.Fatalf("after a claim took 3: %d free; want -2 and no reservation", h.Free())
	}
	h.Release(5)
	select {
	case <-h.Freed():
	default:
		t.Fatal("a release did not signal the claimer")
	}
	h.Hand(DueDelivery{}, DueDelivery{})
	h.Close()
	h.Hand(DueDelivery{})
	if h.Reserve(1) || h.Free() != 0 {
		t.Fatal("reserved after Close")
	}
	n := 0
	for range work {
		n++
	}
	if n != 2 {
		t.Fatalf("the closed work channel gave %d deliveries; want the 2 handed before Close", n)
	}
}
