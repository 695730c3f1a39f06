package application

import "context"

// ListForms is GET /v1/forms.
type ListForms struct {
	Caller Session
}

// ListFormsHandler lists the caller's forms.
type ListFormsHandler struct {
	read ReadModel
}

// NewListFormsHandler builds the handler; every dependency is required.
func NewListFormsHandler(read ReadModel) *ListFormsHandler {
	if read == nil {
		panic("application: nil dependency of ListFormsHandler")
	}
	return &ListFormsHandler{read: read}
}

// Handle returns the caller's forms only.
func (h *ListFormsHandler) Handle(ctx context.Context, q ListForms) ([]FormRecord, error) {
	return h.read.FormsByAccount(ctx, q.Caller.AccountID)
}
