package application

import (
	"context"

	"github.com/formd/formd/domain/account"
)

// ListForms is GET /v1/forms.
type ListForms struct {
	Caller Session
}

// ListFormsHandler lists the caller's forms.
type ListFormsHandler struct {
	read FormLister
}

// NewListFormsHandler builds the handler; every dependency is required.
func NewListFormsHandler(read FormLister) *ListFormsHandler {
	if read == nil {
		panic("application: nil dependency of ListFormsHandler")
	}
	return &ListFormsHandler{read: read}
}

// Handle returns the caller's forms only: a workspace token's, those of its
// workspace.
func (h *ListFormsHandler) Handle(ctx context.Context, q ListForms) ([]FormRecord, error) {
	if err := q.Caller.Require(account.ScopeFormsRead); err != nil {
		return nil, err
	}
	forms, err := h.read.FormsByAccount(ctx, q.Caller.AccountID)
	if err != nil {
		return nil, err
	}
	visible := forms[:0]
	for _, f := range forms {
		if q.Caller.Access.Sees(f.WorkspaceID) {
			visible = append(visible, f)
		}
	}
	return visible, nil
}
