package application

import (
	"context"

	"github.com/formd/formd/domain/account"
)

// FormHistory is GET /v1/forms/{formId}/events.
type FormHistory struct {
	Caller Session
	FormID string
}

// FormHistoryHandler reads a form's audit trail.
type FormHistoryHandler struct {
	read ReadModel
}

// NewFormHistoryHandler builds the handler; every dependency is required.
func NewFormHistoryHandler(read ReadModel) *FormHistoryHandler {
	if read == nil {
		panic("application: nil dependency of FormHistoryHandler")
	}
	return &FormHistoryHandler{read: read}
}

// Handle returns the caller's form's events in order.
func (h *FormHistoryHandler) Handle(ctx context.Context, q FormHistory) ([]HistoryEntry, error) {
	if err := q.Caller.Require(account.ScopeFormsRead); err != nil {
		return nil, err
	}
	if _, err := ownedForm(ctx, h.read, q.Caller, q.FormID); err != nil {
		return nil, err
	}
	return h.read.StreamHistory(ctx, q.FormID)
}
