package application

import (
	"context"

	"github.com/formd/formd/domain/account"
)

// FormSubmissionCounts is how many live submissions each of the caller's
// forms accepted this calendar month (UTC): the dashboard's forms list.
type FormSubmissionCounts struct {
	Caller Session
}

// FormSubmissionCountsHandler reads the counts.
type FormSubmissionCountsHandler struct {
	counts SubmissionCounts
	clock  Clock
}

// NewFormSubmissionCountsHandler builds the handler; every dependency is required.
func NewFormSubmissionCountsHandler(counts SubmissionCounts, clock Clock) *FormSubmissionCountsHandler {
	if counts == nil || clock == nil {
		panic("application: nil dependency of FormSubmissionCountsHandler")
	}
	return &FormSubmissionCountsHandler{counts: counts, clock: clock}
}

// Handle maps form ids to this month's count; a form with none is absent.
func (h *FormSubmissionCountsHandler) Handle(ctx context.Context, q FormSubmissionCounts) (map[string]int, error) {
	if err := q.Caller.Require(account.ScopeFormsRead); err != nil {
		return nil, err
	}
	return h.counts.SubmissionsByForm(ctx, q.Caller.AccountID, account.MonthOf(h.clock.Now()))
}
