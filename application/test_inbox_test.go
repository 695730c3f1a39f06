package application

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// memoryTestInbox is a TestInboxStore in memory, for unit tests.
type memoryTestInbox struct{ kept []StoredTestSubmission }

func (m *memoryTestInbox) AddTestSubmission(_ context.Context, s StoredTestSubmission, keep int) error {
	m.kept = append(m.kept, s)
	return nil
}

func (m *memoryTestInbox) TestSubmissions(_ context.Context, formID string, f TestInboxFilter, now time.Time) ([]StoredTestSubmission, error) {
	var out []StoredTestSubmission
	for _, s := range slices.Backward(m.kept) {
		if s.FormID == formID && now.Before(s.ExpiresAt) && (f.RequestID == "" || f.RequestID == s.RequestID) &&
			(f.IdempotencyKey == "" || f.IdempotencyKey == s.IdempotencyKey) {
			out = append(out, s)
		}
	}
	return out, nil
}

func (m *memoryTestInbox) ClearTestInbox(context.Context, string) (int, error) {
	n := len(m.kept)
	m.kept = nil
	return n, nil
}

func (m *memoryTestInbox) DeleteExpiredTestSubmissions(context.Context, time.Time) (int, error) {
	return 0, nil
}

func newMemoryTestInbox() *TestInbox {
	return newTestInboxWith(&memoryTestInbox{})
}

func newTestInboxWith(store *memoryTestInbox) *TestInbox {
	return NewTestInbox(store, plainSealer{}, NewRenderer(MailSettings{From: "forms@formd.test"}, noSecrets{}, plainSealer{}, plainLinks{}, plainSpamLinks{}, fixedClock{}, plainTemplates{}),
		fixedClock{}, 0)
}

func testerOf(accountID, workspaceID string, scopes ...account.Scope) *Session {
	return &Session{AccountID: accountID, Access: account.TokenAccess(workspaceID, scopes)}
}

func TestATestSubmissionCommitsNothingAndRendersItsMailIntoTheInbox(t *testing.T) {
	f := liveForm(1, "example.com")
	f.WorkspaceID = "ws-1"
	f.Settings.SubjectDefault = "Website message"
	store, kept := &fakeStore{}, &memoryTestInbox{}
	h := NewSubmitHandler(&fakeForms{cached: f, fresh: f}, store, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{},
		fixedClock{}, noFloods{}, testQuotas, NopMetrics{}, noCaptchas(), noSpamChecks(), noUploads(), newTestInboxWith(kept), noHandOff(), uncounted{}, nil)
	cmd := post("https://example.com")
	cmd.Test, cmd.Tester, cmd.IdempotencyKey = true, testerOf("acct-1", "ws-1", account.ScopeSubmissionsTest), "idem-1"
	out, err := h.Handle(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Response.Test || !out.Response.Success || out.Response.DeliveryID == "" {
		t.Fatalf("response %+v", out.Response)
	}
	if len(store.accepted) != 0 {
		t.Fatalf("a test submission commits nothing, got %d commits", len(store.accepted))
	}
	if len(kept.kept) != 1 || kept.kept[0].IdempotencyKey != "idem-1" || kept.kept[0].FormID != "form-1" {
		t.Fatalf("inbox %+v", kept.kept)
	}
	got, err := NewReadTestInboxHandler(fakeRead{form: f}, newTestInboxWith(kept)).Handle(context.Background(),
		ReadTestInbox{Caller: *testerOf("acct-1", "ws-1", account.ScopeSubmissionsTest), FormID: "form-1"})
	if err != nil || len(got) != 1 {
		t.Fatalf("read %v %+v", err, got)
	}
	d := got[0].Deliveries
	if len(d) != 1 || d[0].Kind != delivery.KindNotification || d[0].Email == nil {
		t.Fatalf("deliveries %+v", d)
	}
	e := d[0].Email
	if e.To != "inbox@example.com" || e.Subject != "Website message" || e.ReplyTo != "ada@example.com" || !strings.Contains(e.Text, "message: Hi") ||
		e.From != "forms@formd.test" || e.MessageID != d[0].DeliveryID+"@formd" {
		t.Fatalf("email %+v", e)
	}
}

func TestXServiceTestNeedsACredentialWithTheScopeOnTheFormsWorkspace(t *testing.T) {
	f := liveForm(1, "example.com")
	f.WorkspaceID = "ws-1"
	for name, c := range map[string]struct {
		tester *Session
		want   func(error) bool
	}{
		"no credential":    {nil, func(err error) bool { return errors.Is(err, ErrTestNeedsCredential) }},
		"without scope":    {testerOf("acct-1", "ws-1", account.ScopeFormsWrite), isDenied},
		"other workspace":  {testerOf("acct-1", "ws-2", account.ScopeSubmissionsTest), isDenied},
		"other account":    {&Session{AccountID: "acct-2", Access: account.FullAccess()}, isDenied},
		"owner's session":  {&Session{AccountID: "acct-1", Access: account.FullAccess()}, func(err error) bool { return err == nil }},
		"token with scope": {testerOf("acct-1", "ws-1", account.ScopeSubmissionsTest), func(err error) bool { return err == nil }},
	} {
		store := &fakeStore{}
		h := NewSubmitHandler(&fakeForms{cached: f, fresh: f}, store, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{},
			fixedClock{}, noFloods{}, testQuotas, NopMetrics{}, noCaptchas(), noSpamChecks(), noUploads(), newMemoryTestInbox(), noHandOff(), uncounted{}, nil)
		cmd := post("https://example.com")
		cmd.Test, cmd.Tester = true, c.tester
		_, err := h.Handle(context.Background(), cmd)
		if !c.want(err) || len(store.accepted) != 0 {
			t.Errorf("%s: got %v, %d commits", name, err, len(store.accepted))
		}
	}
}

func TestAFormInTestModeMakesEveryPostATestWithoutACredential(t *testing.T) {
	f := liveForm(1, "example.com")
	f.Settings.TestMode = true
	store, kept := &fakeStore{}, &memoryTestInbox{}
	h := NewSubmitHandler(&fakeForms{cached: f, fresh: f}, store, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{},
		fixedClock{}, noFloods{}, testQuotas, NopMetrics{}, noCaptchas(), noSpamChecks(), noUploads(), newTestInboxWith(kept), noHandOff(), uncounted{}, nil)
	out, err := h.Handle(context.Background(), post("https://example.com"))
	if err != nil || !out.Response.Test || len(store.accepted) != 0 || len(kept.kept) != 1 {
		t.Fatalf("got %v %+v, %d commits, %d kept", err, out.Response, len(store.accepted), len(kept.kept))
	}
}

func TestATestSubmissionPassesEveryGateLikeALiveOne(t *testing.T) {
	f := liveForm(1, "example.com")
	f.RecipientVerified = false
	f.Settings.TestMode = true
	kept := &memoryTestInbox{}
	h := NewSubmitHandler(&fakeForms{cached: f, fresh: f}, &fakeStore{}, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{},
		fixedClock{}, noFloods{}, testQuotas, NopMetrics{}, noCaptchas(), noSpamChecks(), noUploads(), newTestInboxWith(kept), noHandOff(), uncounted{}, nil)
	_, err := h.Handle(context.Background(), post("https://example.com"))
	var rejected *SubmissionRejected
	if !errors.As(err, &rejected) || rejected.Gate != "recipient_verified" || len(kept.kept) != 0 {
		t.Fatalf("an unverified recipient refuses a test as a live post: %v, %d kept", err, len(kept.kept))
	}
	f.RecipientVerified = true
	h = NewSubmitHandler(&fakeForms{cached: f, fresh: f}, &fakeStore{}, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{},
		fixedClock{}, noFloods{}, testQuotas, NopMetrics{}, noCaptchas(), noSpamChecks(), noUploads(), newTestInboxWith(kept), noHandOff(), uncounted{}, nil)
	_, err = h.Handle(context.Background(), post("https://other.example.org"))
	if !errors.As(err, &rejected) || rejected.Gate != "origin" || len(kept.kept) != 0 {
		t.Fatalf("origin: %v", err)
	}
}

func isDenied(err error) bool {
	var denied *domain.PermissionDeniedError
	return errors.As(err, &denied)
}

// fakeRead is a read model of one form.
type fakeRead struct {
	ReadModel
	form FormRecord
}

func (r fakeRead) FormByID(_ context.Context, id string) (FormRecord, error) {
	if id != r.form.ID {
		return FormRecord{}, domain.ErrNotFound
	}
	return r.form, nil
}

// openCounter is a Sealer that counts what it opens: the test inbox must
// never open a webhook signing secret.
type openCounter struct {
	plainSealer
	opened []string
}

func (o *openCounter) Open(aad string, p SealedPayload) ([]byte, error) {
	o.opened = append(o.opened, aad)
	return p.Ciphertext, nil
}

// A test rendering of a webhook is marked test in its body and carries a
// redacted signature for each secret that would sign it: the form's
// secrets are never opened, so a submissions:test credential cannot mint a
// signed webhook for a submission that never happened. The live rendering
// of the same delivery is signed and unmarked.
func TestATestRenderingOfAWebhookIsMarkedTestAndNeverSigned(t *testing.T) {
	q := delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindWebhook}
	p := Payload{Webhook: "https://hooks.example.com/in", RequestID: "req-1", Fields: []submission.Field{{Name: "message", Value: "hi"}}}
	sealer := &openCounter{}
	r := NewRenderer(MailSettings{}, &twoSecrets{}, sealer, plainLinks{}, plainSpamLinks{}, fixedClock{}, plainTemplates{})

	out, err := r.RenderTest(context.Background(), q, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(sealer.opened) != 0 {
		t.Fatalf("a test rendering opened %v, want no secret opened", sealer.opened)
	}
	got := renderingOf(q, out).Request
	if want := "v1,<redacted> v1,<redacted>"; got.Headers["webhook-signature"] != want {
		t.Errorf("webhook-signature %q, want %q (one redacted signature per secret)", got.Headers["webhook-signature"], want)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(got.Body), &body); err != nil || body["test"] != true || body["type"] != WebhookSubmissionAccepted {
		t.Errorf("body %s (%v), want the webhook body with \"test\": true", got.Body, err)
	}

	live, err := r.Render(context.Background(), q, p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(live.Webhook.Body), `"test"`) || !strings.HasPrefix(live.Webhook.Signature, "v1,") ||
		strings.Contains(live.Webhook.Signature, "redacted") || len(sealer.opened) != 2 {
		t.Errorf("live rendering %s signed %q after opening %v, want signed with both secrets and unmarked", live.Webhook.Body,
			live.Webhook.Signature, sealer.opened)
	}
}

// A form whose webhook has no signing secret shows no signature header.
func TestATestRenderingWithoutSecretsHasNoSignatureHeader(t *testing.T) {
	q := delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindWebhook}
	out, err := NewRenderer(MailSettings{}, noSecrets{}, plainSealer{}, plainLinks{}, plainSpamLinks{}, fixedClock{}, plainTemplates{}).
		RenderTest(context.Background(), q, Payload{Webhook: "https://hooks.example.com/in"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := renderingOf(q, out).Request.Headers["webhook-signature"]; ok {
		t.Error("a webhook no secret signs shows a webhook-signature header")
	}
}
