package postgres_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
)

func TestAnAccountsSubmissionsAlwaysTakeOneCommitLane(t *testing.T) {
	store, closeStore := postgres.NewSubmissionStoreWithWorkers(nil, postgres.NewEventStore(), slog.New(slog.NewTextHandler(io.Discard, nil)), 4)
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
