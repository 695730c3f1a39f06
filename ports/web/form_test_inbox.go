package web

import (
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
)

// testInboxPage is the Test inbox tab: the latest test submissions, newest
// first, each with what its deliveries would have sent.
type testInboxPage struct {
	Form        formHeader
	Submissions []testEntry
	// Limit is how many submissions the page shows at most.
	Limit int
}

// testEntry is one test submission as the page shows it.
type testEntry struct {
	ID, RequestID, IdempotencyKey, Message string
	ReceivedAt, ExpiresAt                  time.Time
	Deliveries                             []testDelivery
}

// testDelivery is what one delivery would have sent; one of Email,
// Request, Telegram or Row is set, by kind.
type testDelivery struct {
	// Kind is the API's name of the delivery's kind; Label is for people.
	Kind, Label string
	Email       *testEmail
	Request     *testRequest
	Telegram    *application.RenderedTelegram
	Row         *application.RenderedRow
}

// testEmail is a rendered mail with its sender as one line ("Name <address>").
type testEmail struct {
	application.RenderedEmail
	Sender string
}

// testRequest is a rendered HTTP request with its headers in name order,
// so the page reads the same each time.
type testRequest struct {
	Method, URL, Body string
	Headers           []testHeader
}

// testHeader is one header of a rendered request.
type testHeader struct{ Name, Value string }

// testKindLabels name what each kind of delivery would have sent.
var testKindLabels = map[string]string{
	delivery.KindNotification: "Notification email", delivery.KindAutoresponder: "Autoresponder email",
	delivery.KindWebhook: "Webhook request", delivery.KindSlack: "Slack message", delivery.KindDiscord: "Discord message",
	delivery.KindTelegram: "Telegram message", delivery.KindGoogleSheets: "Google Sheets row",
}

func testEntryOf(s application.TestSubmission) testEntry {
	e := testEntry{ID: s.ID, RequestID: s.RequestID, IdempotencyKey: s.IdempotencyKey, Message: s.Response.Message,
		ReceivedAt: s.ReceivedAt, ExpiresAt: s.ExpiresAt}
	for _, d := range s.Deliveries {
		shown := testDelivery{Kind: d.Kind, Label: testKindLabels[d.Kind], Telegram: d.Telegram, Row: d.Row}
		if shown.Label == "" {
			shown.Label = d.Kind
		}
		if d.Email != nil {
			sender := d.Email.From
			if d.Email.FromName != "" {
				sender = d.Email.FromName + " <" + d.Email.From + ">"
			}
			shown.Email = &testEmail{RenderedEmail: *d.Email, Sender: sender}
		}
		if d.Request != nil {
			req := &testRequest{Method: d.Request.Method, URL: d.Request.URL, Body: d.Request.Body}
			for name, value := range d.Request.Headers {
				req.Headers = append(req.Headers, testHeader{Name: name, Value: value})
			}
			sort.Slice(req.Headers, func(i, j int) bool {
				return strings.ToLower(req.Headers[i].Name) < strings.ToLower(req.Headers[j].Name)
			})
			shown.Request = req
		}
		e.Deliveries = append(e.Deliveries, shown)
	}
	return e
}

func (s *Server) showTestInbox(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Test inbox")
	if !ok {
		return
	}
	list, err := s.app.Queries.ReadTestInbox.Handle(r.Context(), application.ReadTestInbox{Caller: v.Session, FormID: f.ID,
		Filter: application.TestInboxFilter{Limit: application.TestInboxDefaultLimit}})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	page := testInboxPage{Form: f, Limit: application.TestInboxDefaultLimit}
	for _, sub := range list {
		page.Submissions = append(page.Submissions, testEntryOf(sub))
	}
	allowMailFrames(w)
	s.render(w, r, http.StatusOK, "form-test-inbox", view{Title: f.Name + ": test inbox", Section: "forms", Visitor: v,
		Notice: notices[r.URL.Query().Get("notice")], Data: page})
}

// clearTestInbox empties the form's test inbox through the same command as
// DELETE /v1/forms/{formId}/test-inbox.
func (s *Server) clearTestInbox(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Test inbox")
	if !ok {
		return
	}
	if _, err := s.app.Commands.ClearTestInbox.Handle(r.Context(), application.ClearTestInbox{Caller: v.Session, FormID: f.ID}); err != nil {
		s.failed(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/forms/"+f.ID+"/test-inbox?notice=test-inbox-cleared", http.StatusSeeOther)
}
