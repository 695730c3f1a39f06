package web_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/ports/web"
)

const auditedForm = "1c8d7a2f-5b64-4a8f-8b1d-3a4a9a6a2b22"

// bundleAsWritten is the bundle the fake application writes, with an escape
// a re-encoding would change.
const bundleAsWritten = `{"format":"formd-audit-bundle/1","streamId":"` + auditedForm + `","checkpoint":"\u2014"}` + "\n"

// auditedForms holds auditedForm, of the test account.
type auditedForms struct{ application.HistoryReader }

func (auditedForms) FormByID(_ context.Context, id string) (application.FormRecord, error) {
	if id != auditedForm {
		return application.FormRecord{}, domain.ErrNotFound
	}
	return application.FormRecord{ID: id, AccountID: "acc-1"}, nil
}

// latestTree has nothing new to checkpoint; its latest checkpoint covers
// events events of the form.
type latestTree struct {
	application.AuditTree
	events int
}

func (latestTree) Extend(context.Context, int, func(uint64, []byte) (string, error)) (application.Checkpoint, bool, error) {
	return application.Checkpoint{}, false, nil
}

func (t latestTree) StreamEvidence(context.Context, string) (application.AuditEvidence, error) {
	return application.AuditEvidence{Events: make([]application.EvidenceEvent, t.events)}, nil
}

type verifierOnly struct{ application.CheckpointSigner }

func (verifierOnly) VerifierKey() string { return "formd+1a2b3c4d+AQID" }

type writtenBundles struct{ application.AuditBundles }

func (writtenBundles) Write(string, string, string, application.AuditEvidence) ([]byte, error) {
	return []byte(bundleAsWritten), nil
}

type unpublished struct{}

func (unpublished) Publish(context.Context, application.Checkpoint) error { return nil }

// auditDashboard serves the dashboard with a tree holding events events of
// auditedForm.
func auditDashboard(t *testing.T, events int) http.Handler {
	t.Helper()
	tree := latestTree{events: events}
	auth := application.NewAuthenticateHandler(fakeRead{}, noTokens{}, clock{})
	app := &application.Application{Queries: application.Queries{Authenticate: auth,
		RequestForgeryTokens: application.NewRequestForgeryTokenHandler(keyedHasher{}),
		ExportAudit: application.NewExportAuditHandler(auditedForms{}, tree, verifierOnly{}, writtenBundles{},
			application.NewCheckpointAuditHandler(tree, verifierOnly{}, unpublished{}))}}
	return web.NewHandler(app, slog.New(slog.DiscardHandler), web.Config{}, http.NotFoundHandler())
}

// The signed-in person downloads their form's bundle byte for byte as the
// application wrote it; another's form is the 404 page, and a form no
// checkpoint covers yet a page that says to come back in a minute.
func TestTheAuditBundleDownloadsAsWritten(t *testing.T) {
	path := "/dashboard/forms/" + auditedForm + "/audit/export"
	w := do(auditDashboard(t, 1), "GET", path, nil, session)
	if w.Code != http.StatusOK || w.Body.String() != bundleAsWritten {
		t.Fatalf("status %d, body %q; want 200 and the bundle as written", w.Code, w.Body.String())
	}
	if got, want := w.Header().Get("Content-Disposition"), `attachment; filename="formd-audit-`+auditedForm+`.json"`; got != want {
		t.Errorf("Content-Disposition %q, want %q", got, want)
	}
	if got := w.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}

	if w := do(auditDashboard(t, 1), "GET", "/dashboard/forms/2d9e8b3a-6c75-4b9a-9c2e-4b5b0b7b3c33/audit/export", nil, session); w.Code != http.StatusNotFound {
		t.Errorf("another form: status %d, want 404", w.Code)
	}
	if w := do(auditDashboard(t, 1), "GET", path, nil); w.Code != http.StatusSeeOther {
		t.Errorf("signed out: status %d, want a redirect to sign in", w.Code)
	}

	w = do(auditDashboard(t, 0), "GET", path, nil, session)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "60" ||
		!strings.Contains(w.Body.String(), "No checkpoint covers this form&#39;s events yet: try again in a minute.") {
		t.Errorf("nothing checkpointed: status %d, Retry-After %q\n%s", w.Code, w.Header().Get("Retry-After"), w.Body.String())
	}
}
