package application

import (
	"context"
	"sync/atomic"
	"testing"
)

// inProgress counts the submissions in progress.
type inProgress struct{ n atomic.Int64 }

func (c *inProgress) Begin() { c.n.Add(1) }
func (c *inProgress) End()   { c.n.Add(-1) }

// hookedStore runs during's hook while a submission is being committed.
type hookedStore struct {
	fakeStore
	during func()
}

func (s *hookedStore) Accept(ctx context.Context, a AcceptedSubmission) (Acceptance, error) {
	s.during()
	return s.fakeStore.Accept(ctx, a)
}

func TestASubmissionCountsAsInProgressUntilItsCommitReturnsEvenIfItPanics(t *testing.T) {
	store := &hookedStore{}
	load := &inProgress{}
	h := handingOffSubmitHandler(&fakeForms{cached: liveForm(1), fresh: liveForm(1)}, store, noHandOff(), load)
	var during int64
	store.during = func() { during = load.n.Load() }
	if _, err := h.Handle(context.Background(), post("https://example.com")); err != nil {
		t.Fatal(err)
	}
	if during != 1 || load.n.Load() != 0 {
		t.Fatalf("in progress while committing %d, after %d; want 1, then 0", during, load.n.Load())
	}
	store.during = func() { panic("the store failed") }
	func() {
		defer func() { _ = recover() }()
		_, _ = h.Handle(context.Background(), post("https://example.com"))
	}()
	if got := load.n.Load(); got != 0 {
		t.Fatalf("in progress after a panicking commit %d; want 0, or senders would give way for ever", got)
	}
}
