package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/formd/formd/application"
)

// A bundle as the application writes it: compact JSON ending in a newline,
// with an escape a re-encoding would change.
const auditBundle = `{"format":"formd-audit-bundle/1","streamType":"form","streamId":"` + exportForm +
	`","verifierKey":"formd+1a2b3c4d+AQID","checkpoint":"formd\n1\nAAAA\n\n\u2014 formd sig\n","events":[{"leafIndex":0,` +
	`"canonical":"[\"form\"]","hash":"AAAA","inclusionProof":["AQID"]}]}` + "\n"

type auditHistory struct {
	exportFormReader
	application.HistoryReader
}

// quietTree has nothing new to checkpoint, and its latest checkpoint covers
// events events of the form.
type quietTree struct {
	application.AuditTree
	events int
}

func (quietTree) Extend(context.Context, int, func(uint64, []byte) (string, error)) (application.Checkpoint, bool, error) {
	return application.Checkpoint{}, false, nil
}

func (t quietTree) StreamEvidence(context.Context, string) (application.AuditEvidence, error) {
	return application.AuditEvidence{Events: make([]application.EvidenceEvent, t.events)}, nil
}

type keyOnlySigner struct{ application.CheckpointSigner }

func (keyOnlySigner) VerifierKey() string { return "formd+1a2b3c4d+AQID" }

type fixedBundles struct{ application.AuditBundles }

func (fixedBundles) Write(string, string, string, application.AuditEvidence) ([]byte, error) {
	return []byte(auditBundle), nil
}

type noPublisher struct{}

func (noPublisher) Publish(context.Context, application.Checkpoint) error { return nil }

// auditExportServer serves the JSON API with a tree holding events events
// of exportForm.
func auditExportServer(t *testing.T, events int) *httptest.Server {
	t.Helper()
	tree := quietTree{events: events}
	checkpoint := application.NewCheckpointAuditHandler(tree, keyOnlySigner{}, noPublisher{})
	app := &application.Application{Queries: application.Queries{
		Authenticate: application.NewAuthenticateHandler(oneSession{}, noWorkspaceTokens{}, wallClock{}),
		ExportAudit:  application.NewExportAuditHandler(auditHistory{}, tree, keyOnlySigner{}, fixedBundles{}, checkpoint),
	}}
	srv := httptest.NewServer(NewServer(app, currentSchema{}, slog.New(slog.DiscardHandler), Config{}))
	t.Cleanup(srv.Close)
	return srv
}

func getAuditExport(t *testing.T, srv *httptest.Server, formID string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/forms/"+formID+"/audit/export", nil)
	req.Header.Set("Authorization", "Bearer fds_test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// The bundle goes out byte for byte as the application wrote it, as a
// download named after the form, in the shape the contract documents.
func TestAuditExportIsTheBundleAsWritten(t *testing.T) {
	resp, body := getAuditExport(t, auditExportServer(t, 1), exportForm)
	if resp.StatusCode != http.StatusOK || string(body) != auditBundle {
		t.Fatalf("status %d, body %q; want 200 and the bundle as written", resp.StatusCode, body)
	}
	for name, want := range map[string]string{
		"Content-Type":        "application/json",
		"Content-Disposition": `attachment; filename="formd-audit-` + exportForm + `.json"`,
		"Cache-Control":       "private, no-store",
	} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	var decoded any
	if err := json.Unmarshal(body, &decoded); err != nil {
		t.Fatal(err)
	}
	schema := responseSchema(t, loadOpenAPI(t), "GET", "/v1/forms/{formId}/audit/export", 200, "application/json")
	if err := schema.VisitJSON(decoded, openapi3.MultiErrors(), openapi3.VisitAsResponse(), openapi3.EnableFormatValidation()); err != nil {
		t.Errorf("the bundle does not match its schema: %v", err)
	}
}

// Another account's form is not found; a form no checkpoint covers yet is
// a 503 that says when to come back, not a failure.
func TestAuditExportRefusals(t *testing.T) {
	resp, _ := getAuditExport(t, auditExportServer(t, 1), "2d9e8b3a-6c75-4b9a-9c2e-4b5b0b7b3c33")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("another form: %d, want 404", resp.StatusCode)
	}
	resp, body := getAuditExport(t, auditExportServer(t, 0), exportForm)
	var e errorBody
	_ = json.Unmarshal(body, &e)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "60" ||
		e.Message != "no checkpoint covers this form's events yet: try again in a minute" ||
		resp.Header.Get("Content-Disposition") != "" {
		t.Errorf("nothing checkpointed: %d, Retry-After %q, %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}
