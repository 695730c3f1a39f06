package application

import (
	"context"

	"github.com/formd/formd/domain/account"
)

// ListIntegrations is GET /v1/forms/{formId}/integrations.
type ListIntegrations struct {
	Caller Session
	FormID string
}

// ListIntegrationsHandler lists a form's integrations from the forms read
// model, which keeps them beside the settings.
type ListIntegrationsHandler struct {
	read FormReader
}

// NewListIntegrationsHandler builds the handler; every dependency is required.
func NewListIntegrationsHandler(read FormReader) *ListIntegrationsHandler {
	if read == nil {
		panic("application: nil dependency of ListIntegrationsHandler")
	}
	return &ListIntegrationsHandler{read: read}
}

// Handle returns the caller's form's integrations, never a secret, and
// their target URLs masked (form.MaskURL): a Slack or Discord URL is a
// credential.
func (h *ListIntegrationsHandler) Handle(ctx context.Context, q ListIntegrations) ([]IntegrationRecord, error) {
	if err := q.Caller.Require(account.ScopeFormsRead); err != nil {
		return nil, err
	}
	rec, err := ownedForm(ctx, h.read, q.Caller, q.FormID)
	if err != nil {
		return nil, err
	}
	out := make([]IntegrationRecord, len(rec.Integrations))
	for i, in := range rec.Integrations {
		out[i] = IntegrationRecord{Integration: in.Masked()}
	}
	return out, nil
}
