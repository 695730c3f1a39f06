package application

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
)

// Test inbox limits: how long renderings are kept by default, how many a
// form keeps at most (the oldest go first), and how many one read returns.
const (
	DefaultTestInboxRetention = time.Hour
	TestInboxCapacity         = 100
	TestInboxDefaultLimit     = 20
)

// MsgTestNeedsCredential and MsgTestNeedsScope refuse X-Service-Test on a
// form not in test mode without a credential that may test it.
const (
	MsgTestNeedsCredential = "X-Service-Test needs a workspace token or session with the submissions:test scope (Authorization: Bearer …), or the form in test mode."
	MsgTestNeedsScope      = "This credential cannot send test submissions to this form: it needs the submissions:test scope on the form's workspace."
)

// ErrTestNeedsCredential refuses X-Service-Test without a credential (a
// 401 with MsgTestNeedsCredential).
var ErrTestNeedsCredential = fmt.Errorf("%w: %s", ErrUnauthenticated, MsgTestNeedsCredential)

// TestSubmission is one test submission in a form's test inbox: the answer
// it got and exactly what each of its deliveries would have sent.
type TestSubmission struct {
	ID             string             `json:"id"`
	RequestID      string             `json:"requestId"`
	IdempotencyKey string             `json:"idempotencyKey,omitempty"`
	ReceivedAt     time.Time          `json:"receivedAt"`
	ExpiresAt      time.Time          `json:"expiresAt"`
	Response       SubmissionResponse `json:"response"`
	Deliveries     []TestRendering    `json:"deliveries"`
}

// TestRendering is what one delivery of a test submission would have sent;
// one of Email, Request, Telegram or Row is set, by kind.
type TestRendering struct {
	DeliveryID string            `json:"deliveryId"`
	Kind       string            `json:"kind"`
	Email      *RenderedEmail    `json:"email,omitempty"`
	Request    *RenderedRequest  `json:"request,omitempty"`
	Telegram   *RenderedTelegram `json:"telegram,omitempty"`
	Row        *RenderedRow      `json:"row,omitempty"`
}

// RenderedEmail is a notification or autoresponder mail: its headers and
// its bodies: the text, and the HTML body sent beside it (null for a mail
// without one).
type RenderedEmail struct {
	MessageID   string               `json:"messageId"`
	From        string               `json:"from"`
	FromName    string               `json:"fromName"`
	To          string               `json:"to"`
	Cc          []string             `json:"cc"`
	ReplyTo     string               `json:"replyTo"`
	Subject     string               `json:"subject"`
	Text        string               `json:"text"`
	HTML        *string              `json:"html"`
	Attachments []RenderedAttachment `json:"attachments"`
}

// RenderedAttachment is a file a mail would carry (never its content).
type RenderedAttachment struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Size int    `json:"size"`
}

// RenderedRequest is a webhook, Slack or Discord request: method, URL
// (masked, form.MaskURL: a chat URL is a credential), headers and body. A webhook's body says "test": true and its
// webhook-signature is redacted ("v1,<redacted>", one per secret that
// would sign it): a test never yields a signature that verifies.
type RenderedRequest struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	// Body is the exact bytes the request would carry (JSON text).
	Body string `json:"body"`
}

// RenderedTelegram is a Telegram Bot API sendMessage call; the bot token,
// the operator's secret, is never shown.
type RenderedTelegram struct {
	Method string `json:"method"`
	Body   string `json:"body"`
}

// RenderedRow is a Google Sheets row (spreadsheets.values.append).
type RenderedRow struct {
	SpreadsheetID string   `json:"spreadsheetId"`
	SheetName     string   `json:"sheetName"`
	Values        []string `json:"values"`
}

// renderingOf shows one built delivery as the test inbox keeps it.
func renderingOf(q delivery.Queued, out Outgoing) TestRendering {
	r := TestRendering{DeliveryID: q.DeliveryID, Kind: delivery.PublicKind(q.Kind)}
	switch {
	case out.Mail != nil:
		m := out.Mail
		e := &RenderedEmail{MessageID: m.MessageID, From: m.From, FromName: m.FromName, To: m.To, Cc: m.Cc, ReplyTo: m.ReplyTo,
			Subject: m.Subject, Text: m.Text, Attachments: []RenderedAttachment{}}
		if m.HTML != "" {
			html := m.HTML
			e.HTML = &html
		}
		if e.Cc == nil {
			e.Cc = []string{}
		}
		for _, a := range m.Attachments {
			e.Attachments = append(e.Attachments, RenderedAttachment{Name: a.Name, Type: a.Type, Size: len(a.Content)})
		}
		r.Email = e
	case out.Webhook != nil:
		w := out.Webhook
		headers := map[string]string{}
		for _, h := range w.Headers() {
			headers[h.Name] = h.Value
		}
		r.Request = &RenderedRequest{Method: "POST", URL: form.MaskURL(w.URL), Headers: headers, Body: string(w.Body)}
	case out.Telegram != nil:
		r.Telegram = &RenderedTelegram{Method: "sendMessage", Body: string(out.Telegram.Body)}
	case out.Row != nil:
		r.Row = &RenderedRow{SpreadsheetID: out.Row.SpreadsheetID, SheetName: out.Row.SheetName, Values: out.Row.Values}
	}
	return r
}

// TestInbox keeps what test submissions would have sent: rendered by the
// same Renderer as real deliveries, sealed like payloads, and shredded
// after the retention.
type TestInbox struct {
	store     TestInboxStore
	sealer    Sealer
	render    *Renderer
	clock     Clock
	retention time.Duration
}

// NewTestInbox builds the inbox; every dependency is required, and a
// retention of zero is DefaultTestInboxRetention.
func NewTestInbox(store TestInboxStore, sealer Sealer, render *Renderer, clock Clock, retention time.Duration) *TestInbox {
	if store == nil || sealer == nil || render == nil || clock == nil {
		panic("application: nil dependency of TestInbox")
	}
	if retention <= 0 {
		retention = DefaultTestInboxRetention
	}
	return &TestInbox{store: store, sealer: sealer, render: render, clock: clock, retention: retention}
}

// testInboxAAD binds a sealed entry to its id, apart from payloads'.
func testInboxAAD(id string) string { return "test-inbox:" + id }

// record renders every planned delivery of an accepted test submission and
// keeps them with its response.
func (t *TestInbox) record(ctx context.Context, formID, submissionID, idempotencyKey string, resp SubmissionResponse, queued []delivery.Queued,
	p Payload) error {
	now := t.clock.Now()
	entry := TestSubmission{ID: submissionID, RequestID: resp.RequestID, IdempotencyKey: idempotencyKey, ReceivedAt: now.UTC(),
		ExpiresAt: now.Add(t.retention).UTC(), Response: resp, Deliveries: make([]TestRendering, 0, len(queued))}
	for _, q := range queued {
		out, err := t.render.RenderTest(ctx, q, p)
		if err != nil {
			return fmt.Errorf("rendering the %s delivery of a test submission: %w", q.Kind, err)
		}
		entry.Deliveries = append(entry.Deliveries, renderingOf(q, out))
	}
	plain, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	sealed, err := t.sealer.Seal(testInboxAAD(entry.ID), plain)
	if err != nil {
		return err
	}
	return t.store.AddTestSubmission(ctx, StoredTestSubmission{ID: entry.ID, FormID: formID, RequestID: entry.RequestID,
		IdempotencyKey: idempotencyKey, ReceivedAt: now, ExpiresAt: now.Add(t.retention), Sealed: sealed}, TestInboxCapacity)
}

// authorizeTest checks that the credential of a post marked X-Service-Test
// may send test submissions to rec.
func authorizeTest(tester *Session, rec FormRecord) error {
	if tester == nil {
		return ErrTestNeedsCredential
	}
	if tester.AccountID != rec.AccountID || !tester.Access.Sees(rec.WorkspaceID) || tester.Require(account.ScopeSubmissionsTest) != nil {
		return &domain.PermissionDeniedError{Message: MsgTestNeedsScope}
	}
	return nil
}

// ReadTestInbox is GET /v1/forms/{formId}/test-inbox.
type ReadTestInbox struct {
	Caller Session
	FormID string
	Filter TestInboxFilter
}

// ReadTestInboxHandler lists a form's latest test submissions, newest first.
type ReadTestInboxHandler struct {
	read  FormReader
	inbox *TestInbox
}

// NewReadTestInboxHandler builds the handler; every dependency is required.
func NewReadTestInboxHandler(read FormReader, inbox *TestInbox) *ReadTestInboxHandler {
	if read == nil || inbox == nil {
		panic("application: nil dependency of ReadTestInboxHandler")
	}
	return &ReadTestInboxHandler{read: read, inbox: inbox}
}

// Handle needs the submissions:test scope on the form's workspace; another
// account's form is not found.
func (h *ReadTestInboxHandler) Handle(ctx context.Context, q ReadTestInbox) ([]TestSubmission, error) {
	if err := q.Caller.Require(account.ScopeSubmissionsTest); err != nil {
		return nil, err
	}
	rec, err := ownedForm(ctx, h.read, q.Caller, q.FormID)
	if err != nil {
		return nil, err
	}
	f := q.Filter
	if f.Limit <= 0 || f.Limit > TestInboxCapacity {
		f.Limit = TestInboxDefaultLimit
	}
	stored, err := h.inbox.store.TestSubmissions(ctx, rec.ID, f, h.inbox.clock.Now())
	if err != nil {
		return nil, err
	}
	out := make([]TestSubmission, 0, len(stored))
	for _, s := range stored {
		plain, err := h.inbox.sealer.Open(testInboxAAD(s.ID), s.Sealed)
		if err != nil {
			return nil, fmt.Errorf("opening test submission %s: %w", s.ID, err)
		}
		var e TestSubmission
		if err := json.Unmarshal(plain, &e); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// ClearTestInbox is DELETE /v1/forms/{formId}/test-inbox.
type ClearTestInbox struct {
	Caller Session
	FormID string
}

// ClearTestInboxHandler shreds every test submission of a form.
type ClearTestInboxHandler struct {
	read  FormReader
	inbox *TestInbox
}

// NewClearTestInboxHandler builds the handler; every dependency is required.
func NewClearTestInboxHandler(read FormReader, inbox *TestInbox) *ClearTestInboxHandler {
	if read == nil || inbox == nil {
		panic("application: nil dependency of ClearTestInboxHandler")
	}
	return &ClearTestInboxHandler{read: read, inbox: inbox}
}

// Handle returns how many test submissions were deleted.
func (h *ClearTestInboxHandler) Handle(ctx context.Context, cmd ClearTestInbox) (int, error) {
	if err := cmd.Caller.Require(account.ScopeSubmissionsTest); err != nil {
		return 0, err
	}
	rec, err := ownedForm(ctx, h.read, cmd.Caller, cmd.FormID)
	if err != nil {
		return 0, err
	}
	return h.inbox.store.ClearTestInbox(ctx, rec.ID)
}

// Sweep deletes the test submissions past their retention, in every
// process (FORMD_UPLOAD_SWEEP_INTERVAL's loop); reads never show them
// even before.
func (t *TestInbox) Sweep(ctx context.Context) (int, error) {
	return t.store.DeleteExpiredTestSubmissions(ctx, t.clock.Now())
}
