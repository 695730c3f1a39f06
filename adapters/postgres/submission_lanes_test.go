package postgres_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/submission"
)

func TestAnAccountsSubmissionsAlwaysTakeOneCommitLane(t *testing.T) {
	store, closeStore := postgres.NewSubmissionStoreWithLanes(nil, postgres.NewEventStore(), slog.New(slog.NewTextHandler(io.Discard, nil)), 4)
	defer closeStore()
	account := uuid.NewString()
	first := postgres.LaneOf(store, application.AcceptedSubmission{FormID: uuid.NewString(), Charge: application.QuotaCharge{AccountID: account}})
	used := map[int]bool{}
	for range 200 {
		// Another form of the same account: the same lane, so its quota row
		// is never locked by two of this process's commits at once.
		if got := postgres.LaneOf(store, application.AcceptedSubmission{FormID: uuid.NewString(), Charge: application.QuotaCharge{AccountID: account}}); got != first {
			t.Fatalf("lane %d, then %d for the same account", first, got)
		}
		used[postgres.LaneOf(store, application.AcceptedSubmission{FormID: uuid.NewString(), Charge: application.QuotaCharge{AccountID: uuid.NewString()}})] = true
	}
	if len(used) != 4 {
		t.Fatalf("200 accounts used %d of 4 lanes", len(used))
	}
}

// A lane is committed by the submission that found it idle, on its own
// goroutine. A panic there (here: a store without a pool) reaches that
// submission's caller, and the lane passes on rather than wait for a
// leader that is gone: the next submission is committed (and panics
// alike) instead of waiting for ever.
func TestAPanickingCommitDoesNotWedgeItsLane(t *testing.T) {
	// Closed only if the lane is not wedged: Close waits for its leader.
	store, closeStore := postgres.NewSubmissionStoreWithLanes(nil, postgres.NewEventStore(), slog.New(slog.NewTextHandler(io.Discard, nil)), 1)
	formID := uuid.NewString()
	sub := application.AcceptedSubmission{FormID: formID, FormVersion: 1,
		Accepted: submission.Accepted{SubmissionID: uuid.NewString(), FormID: formID, At: time.Now().UTC()}}
	for i := range 2 {
		panicked := make(chan any, 1)
		go func() {
			defer func() { panicked <- recover() }()
			_, _ = store.Accept(context.Background(), sub)
		}()
		select {
		case r := <-panicked:
			if r == nil {
				t.Fatalf("submission %d: Accept returned without the commit's panic", i)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("submission %d: its lane was never committed", i)
		}
	}
	closeStore()
}
