package application

import (
	"testing"

	"github.com/formd/formd/domain/form"
)

// Every view of the audit trail tells the same changes: a webhook secret by
// its prefix only, a verified recipient as false → true.
func TestHistoryEntryChanges(t *testing.T) {
	rotated := HistoryEntry{Event: form.WebhookSecretIssued{SecretPrefix: "whsec_new", PreviousSecretPrefix: "whsec_old"}}
	got := rotated.Changes()
	if len(got) != 1 || got[0].Field != "integrations.webhook.secretPrefix" || string(got[0].From) != `"whsec_old"` || string(got[0].To) != `"whsec_new"` {
		t.Errorf("rotation: %+v", got)
	}
	first := HistoryEntry{Event: form.WebhookSecretIssued{SecretPrefix: "whsec_new"}}
	if got := first.Changes(); len(got) != 1 || string(got[0].From) != "null" {
		t.Errorf("first secret: %+v", got)
	}
	verified := HistoryEntry{Event: form.RecipientVerified{}}
	if got := verified.Changes(); len(got) != 1 || got[0].Field != "recipientVerified" || string(got[0].To) != "true" {
		t.Errorf("verified: %+v", got)
	}
	if got := (HistoryEntry{Event: "something else"}).Changes(); got != nil {
		t.Errorf("unknown event: %+v", got)
	}
}
