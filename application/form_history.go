package application

import (
	"context"
	"encoding/json"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
)

// FormHistory is GET /v1/forms/{formId}/events.
type FormHistory struct {
	Caller Session
	FormID string
}

// FormHistoryReader is what the form history reads: the form, to check the
// caller owns it, and its stream's trail.
type FormHistoryReader interface {
	FormReader
	HistoryReader
}

// FormHistoryHandler reads a form's audit trail.
type FormHistoryHandler struct {
	read  FormHistoryReader
	names ActorNameReader
}

// NewFormHistoryHandler builds the handler; every dependency is required.
func NewFormHistoryHandler(read FormHistoryReader, names ActorNameReader) *FormHistoryHandler {
	if read == nil || names == nil {
		panic("application: nil dependency of FormHistoryHandler")
	}
	return &FormHistoryHandler{read: read, names: names}
}

// Handle returns the caller's form's events in order, each with its actor's
// name.
func (h *FormHistoryHandler) Handle(ctx context.Context, q FormHistory) ([]HistoryEntry, error) {
	history, err := ownedFormHistory(ctx, h.read, q.Caller, account.ScopeFormsRead, q.FormID)
	if err != nil {
		return nil, err
	}
	return history, nameActors(ctx, h.names, history)
}

// Changes says what a form event changed, uniformly for every event type,
// for every view of the audit trail (the JSON API's and the dashboard's):
// a created form as every setting from nothing, a verified recipient as
// false → true, a webhook secret only ever by its prefix, and an
// integration's target URL masked.
func (e HistoryEntry) Changes() []form.Change {
	switch ev := e.Event.(type) {
	case form.Created:
		return form.Diff(form.Settings{}, ev.Settings, true)
	case form.SettingsChanged:
		return ev.Changes
	case form.SettingsRestored:
		return ev.Changes
	case form.RecipientVerified:
		return []form.Change{{Field: "recipientVerified", From: json.RawMessage("false"), To: json.RawMessage("true")}}
	case form.RouteRecipientVerified:
		to, _ := json.Marshal(ev.RecipientEmail)
		return []form.Change{{Field: "routeVerification", From: json.RawMessage("null"), To: to}}
	case form.IntegrationConfigured:
		out := make([]form.Change, len(ev.Changes))
		for i, c := range ev.Changes {
			out[i] = form.MaskedChange(c)
		}
		return out
	case form.GoogleSheetProven:
		return []form.Change{{Field: "integrations.google_sheets.sheetProven", From: json.RawMessage("false"), To: json.RawMessage("true")}}
	case form.TelegramChatConnected:
		to, _ := json.Marshal(ev.ChatID)
		return []form.Change{{Field: "integrations.telegram.chatId", From: json.RawMessage("null"), To: to}}
	case form.WebhookSecretIssued:
		from := json.RawMessage("null")
		if ev.PreviousSecretPrefix != "" {
			from, _ = json.Marshal(ev.PreviousSecretPrefix)
		}
		to, _ := json.Marshal(ev.SecretPrefix)
		return []form.Change{{Field: "integrations.webhook.secretPrefix", From: from, To: to}}
	case form.SubmissionsErased:
		to, _ := json.Marshal(map[string]any{"erased": ev.Count, "by": ev.By})
		return []form.Change{{Field: "submissions", From: json.RawMessage("null"), To: to}}
	case form.SpamReviewed:
		to, _ := json.Marshal(map[string]any{"submissionId": ev.SubmissionID, "verdict": ev.Verdict, "learned": ev.Learned})
		return []form.Change{{Field: "spamFolder", From: json.RawMessage("null"), To: to}}
	}
	return nil
}

// RestoredVersion is the version whose settings the entry brought back, for
// a restore (form.SettingsRestored); 0 for any other event.
func (e HistoryEntry) RestoredVersion() int {
	if ev, ok := e.Event.(form.SettingsRestored); ok {
		return ev.RestoredVersion
	}
	return 0
}
