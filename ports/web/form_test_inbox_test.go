package web

import (
	"testing"

	"github.com/formd/formd/application"
)

func TestTestEntryShowsSenderHeadersAndKindsForPeople(t *testing.T) {
	e := testEntryOf(application.TestSubmission{ID: "t1", Response: application.SubmissionResponse{Message: "Email sent successfully!"},
		Deliveries: []application.TestRendering{
			{Kind: "notification", Email: &application.RenderedEmail{From: "formd@example.net", FromName: "Notifications"}},
			{Kind: "autoresponder", Email: &application.RenderedEmail{From: "formd@example.net"}},
			{Kind: "webhook", Request: &application.RenderedRequest{Method: "POST", URL: "https://example.com/hook",
				Headers: map[string]string{"X-Formd-Signature": "t=1,v1=ab", "Content-Type": "application/json", "user-agent": "formd"}}},
			{Kind: "something_new"},
		}})
	if e.Message != "Email sent successfully!" || len(e.Deliveries) != 4 {
		t.Fatalf("entry %+v", e)
	}
	if got := e.Deliveries[0].Email.Sender; got != "Notifications <formd@example.net>" {
		t.Errorf("named sender: %q", got)
	}
	if got := e.Deliveries[1].Email.Sender; got != "formd@example.net" {
		t.Errorf("sender without a name: %q", got)
	}
	var names []string
	for _, h := range e.Deliveries[2].Request.Headers {
		names = append(names, h.Name)
	}
	if len(names) != 3 || names[0] != "Content-Type" || names[1] != "user-agent" || names[2] != "X-Formd-Signature" {
		t.Errorf("headers in name order, whatever their case: %v", names)
	}
	for i, want := range []string{"Notification email", "Autoresponder email", "Webhook request", "something_new"} {
		if got := e.Deliveries[i].Label; got != want {
			t.Errorf("delivery %d: label %q, want %q", i, got, want)
		}
	}
}
