package application

import (
	"context"
	"fmt"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
)

// FormVersion is GET /v1/forms/{formId}/versions/{version}.
type FormVersion struct {
	Caller  Session
	FormID  string
	Version int
}

// FormVersionRecord is a form as it was at one version of its stream.
type FormVersionRecord struct {
	// Form is the form as the event that made the version left it.
	Form FormRecord
	// Entry is that event as the audit trail shows it: its type, time and
	// actor (named).
	Entry HistoryEntry
}

// FormVersionHandler reads a form's settings as of any version.
type FormVersionHandler struct {
	read  FormHistoryReader
	names ActorNameReader
}

// NewFormVersionHandler builds the handler; every dependency is required.
func NewFormVersionHandler(read FormHistoryReader, names ActorNameReader) *FormVersionHandler {
	if read == nil || names == nil {
		panic("application: nil dependency of FormVersionHandler")
	}
	return &FormVersionHandler{read: read, names: names}
}

// Handle rebuilds the caller's form at the version asked for; a version the
// form has not reached is not found.
func (h *FormVersionHandler) Handle(ctx context.Context, q FormVersion) (FormVersionRecord, error) {
	history, err := ownedFormHistory(ctx, h.read, q.Caller, account.ScopeFormsRead, q.FormID)
	if err != nil {
		return FormVersionRecord{}, err
	}
	f, err := formAtVersion(history, q.Version)
	if err != nil {
		return FormVersionRecord{}, err
	}
	entry := []HistoryEntry{history[q.Version-1]}
	if err := nameActors(ctx, h.names, entry); err != nil {
		return FormVersionRecord{}, err
	}
	return FormVersionRecord{Form: formRecordOf(f), Entry: entry[0]}, nil
}

// formAtVersion rebuilds a form from its audit trail as it was after its
// first n events (form.AtVersion).
func formAtVersion(history []HistoryEntry, n int) (*form.Form, error) {
	events := make([]form.Event, len(history))
	for i, e := range history {
		ev, ok := e.Event.(form.Event)
		if !ok {
			return nil, fmt.Errorf("application: event %d of a form's stream is %T, not a form event", e.Version, e.Event)
		}
		events[i] = ev
	}
	return form.AtVersion(events, n)
}

// formRecordOf is a rebuilt form as the read model would have shown it.
func formRecordOf(f *form.Form) FormRecord {
	return FormRecord{
		ID: f.ID(), AccountID: f.AccountID(), WorkspaceID: f.WorkspaceID(), AccessKeyPrefix: f.AccessKeyPrefix(),
		Settings: f.Settings(), RecipientVerified: f.RecipientVerified(), VerifiedRoutes: f.VerifiedRoutes(), Version: f.Version(),
		CreatedAt: f.CreatedAt(), UpdatedAt: f.UpdatedAt(), Integrations: f.Integrations(),
	}
}
