package application

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// oneDelivery is a delivery store holding one claimed delivery.
type oneDelivery struct {
	claimed  ClaimedDelivery
	payload  *SealedPayload
	recorded []Attempt
}

func (s *oneDelivery) RecordAttempts(_ context.Context, a []Attempt) error {
	s.recorded = append(s.recorded, a...)
	return nil
}
func (s *oneDelivery) ClaimDue(context.Context, time.Time, time.Duration, int) ([]ClaimedDelivery, error) {
	c := s.claimed
	c.Payload = s.payload
	return []ClaimedDelivery{c}, nil
}

type webhookResult struct{ err error }

func (w webhookResult) Send(context.Context, Webhook) error { return w.err }

// noSecrets is a store where no form's webhook has a signing secret.
type noSecrets struct{}

func (noSecrets) SigningSecrets(context.Context, string, time.Time) ([]StoredWebhookSecret, error) {
	return nil, nil
}

type noMail struct{}

func (noMail) Send(context.Context, Mail) error { return errors.New("no mail in this test") }

// The handler sends and records; what an outcome means is the delivery's to
// decide (domain/delivery), so this checks only that each kind of result
// reaches it.
func TestDeliverRecordsWhatTheDeliveryDecides(t *testing.T) {
	payload, _ := encodePayload(Payload{Webhook: "https://hooks.example.com"})
	sealed := SealedPayload{Ciphertext: payload}
	tests := []struct {
		name    string
		before  int
		sendErr error
		sealed  *SealedPayload
		want    string // delivery.Status of the outcome
	}{
		{"a sent webhook succeeds", 0, nil, &sealed, "succeeded"},
		{"a transient failure is retried", 0, errors.New("503"), &sealed, "retrying"},
		{"a permanent failure gives up", 0, fmt.Errorf("%w: 410", ErrPermanent), &sealed, "failed"},
		{"the last attempt gives up", delivery.ScheduleFor(delivery.KindWebhook).MaxAttempts() - 1, errors.New("503"), &sealed, "failed"},
		{"a redacted payload gives up", 0, nil, nil, "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &oneDelivery{payload: tt.sealed, claimed: ClaimedDelivery{Attempts: tt.before,
				Queued: delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindWebhook}}}
			h := NewDeliverHandler(store, plainSealer{}, noMail{}, webhookResult{tt.sendErr}, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{}, MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
			n, err := h.Handle(context.Background(), DeliverDue{Limit: 1})
			if err != nil || n != 1 {
				t.Fatalf("Handle: %d, %v", n, err)
			}
			if len(store.recorded) != 1 {
				t.Fatalf("recorded %+v", store.recorded)
			}
			a := store.recorded[0]
			if got := delivery.Status(a.Outcome); got != tt.want || a.Number != tt.before+1 {
				t.Errorf("outcome %#v (status %s), attempt %d; want %s at attempt %d", a.Outcome, got, a.Number, tt.want, tt.before+1)
			}
		})
	}
}

var discardLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// wrongKeySealer opens nothing, as a formd run without the key that sealed
// the payload.
type wrongKeySealer struct{ plainSealer }

func (wrongKeySealer) Open(string, SealedPayload) ([]byte, error) {
	return nil, errors.New("sealed under key 1a2b3c4d, which is not configured")
}

// Regression (issue 8, item 10): a payload formd could not unseal made its
// delivery give up at once (ErrPermanent), and then redaction deleted the
// payload: a submission lost to a missing key. Now the delivery waits on the
// retry schedule, never gives up for it, says why, and the failure is logged
// as an error naming the delivery and the submission.
func TestAPayloadThatCannotBeUnsealedWaitsForItsKey(t *testing.T) {
	payload, _ := encodePayload(Payload{Webhook: "https://hooks.example.com"})
	for _, before := range []int{0, delivery.MaxAttempts - 1, delivery.MaxAttempts + 2} {
		store := &oneDelivery{payload: &SealedPayload{KeyID: "1a2b3c4d", Ciphertext: payload}, claimed: ClaimedDelivery{Attempts: before,
			Queued: delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindWebhook}}}
		var logged bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logged, nil))
		h := NewDeliverHandler(store, wrongKeySealer{}, noMail{}, webhookResult{}, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{}, MailSettings{}, fixedClock{}, log, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
		if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil {
			t.Fatal(err)
		}
		if len(store.recorded) != 1 {
			t.Fatalf("recorded %+v", store.recorded)
		}
		failed, ok := store.recorded[0].Outcome.(delivery.AttemptFailed)
		if !ok {
			t.Fatalf("after %d attempts: outcome %#v; want a retry, never a final failure (it would redact the payload)", before, store.recorded[0].Outcome)
		}
		if !strings.Contains(failed.Reason, "sealing key wrong or missing") || !strings.Contains(failed.Reason, "1a2b3c4d") || !failed.NextAt.After(fixedClock{}.Now()) {
			t.Errorf("reason %q, next at %v; want the key named as the cause and a later retry", failed.Reason, failed.NextAt)
		}
		line := logged.String()
		if !strings.Contains(line, "level=ERROR") || !strings.Contains(line, "deliveryId=d1") || !strings.Contains(line, "submissionId=s1") {
			t.Errorf("log %q; want an error naming delivery d1 and submission s1", line)
		}
	}
}

// sentWebhooks records what the sender was asked to post.
type sentWebhooks struct {
	sent     []Webhook
	telegram []TelegramMessage
	rows     []SheetRow
}

func (s *sentWebhooks) Send(_ context.Context, w Webhook) error {
	s.sent = append(s.sent, w)
	return nil
}

// twoSecrets is a form whose webhook secret was rotated within the overlap.
type twoSecrets struct{ asked []string }

func (s *twoSecrets) SigningSecrets(_ context.Context, formID string, _ time.Time) ([]StoredWebhookSecret, error) {
	s.asked = append(s.asked, formID)
	return []StoredWebhookSecret{
		{ID: "ws2", Sealed: SealedPayload{Ciphertext: []byte("whsec_bmV3IHNlY3JldCBieXRlcw==")}},
		{ID: "ws1", Sealed: SealedPayload{Ciphertext: []byte("whsec_b2xkIHNlY3JldCBieXRlcw==")}},
	}, nil
}

// A webhook is signed at send time with every secret of its form still
// valid, over the timestamp it is sent with.
func TestDeliverSignsWebhooksWithTheFormsSecrets(t *testing.T) {
	payload, _ := encodePayload(Payload{Webhook: "https://hooks.example.com/in"})
	store := &oneDelivery{payload: &SealedPayload{Ciphertext: payload}, claimed: ClaimedDelivery{
		Queued: delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindWebhook}}}
	hooks, secrets := &sentWebhooks{}, &twoSecrets{}
	h := NewDeliverHandler(store, plainSealer{}, noMail{}, hooks, secrets, NewMemoryTransactor(), noVerifications{}, prefixTokens{}, MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
	if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if len(hooks.sent) != 1 || len(secrets.asked) != 1 || secrets.asked[0] != "f1" {
		t.Fatalf("sent %+v, secrets asked for %v", hooks.sent, secrets.asked)
	}
	w := hooks.sent[0]
	if w.Timestamp != (fixedClock{}).Now().Unix() {
		t.Errorf("timestamp %d, want the clock's", w.Timestamp)
	}
	want, _ := delivery.WebhookSignature("d1", w.Timestamp, w.Body, []string{"whsec_bmV3IHNlY3JldCBieXRlcw==", "whsec_b2xkIHNlY3JldCBieXRlcw=="})
	if w.Signature == "" || w.Signature != want {
		t.Errorf("signature %q, want %q (both secrets, current first)", w.Signature, want)
	}
	if strings.Contains(string(w.Body), "whsec_") || strings.Contains(w.Signature, "whsec_") {
		t.Error("a secret leaked into the webhook")
	}
}

// Each webhook delivery of a submission posts to its own URL (per-submit
// or the integration's) the documented body: the fields and the ids and
// time, nothing else.
func TestDeliverPostsTheWebhookBodyToTheDeliverysURL(t *testing.T) {
	at := time.Date(2026, 11, 22, 11, 59, 0, 0, time.UTC)
	payload, _ := encodePayload(Payload{Webhook: "https://per.example.com/h", RequestID: "req-1",
		Fields:      []submission.Field{{Name: "message", Value: "hi"}},
		WebhookURLs: map[string]string{"d1": "https://per.example.com/h", "d2": "https://in.example.org/h"}})
	store := &oneDelivery{payload: &SealedPayload{Ciphertext: payload}, claimed: ClaimedDelivery{
		Queued: delivery.Queued{DeliveryID: "d2", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindWebhook, At: at}}}
	hooks := &sentWebhooks{}
	h := NewDeliverHandler(store, plainSealer{}, noMail{}, hooks, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{}, MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
	if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if len(hooks.sent) != 1 || hooks.sent[0].URL != "https://in.example.org/h" || hooks.sent[0].Signature != "" {
		t.Fatalf("sent %+v, want one unsigned post to the integration's URL", hooks.sent)
	}
	want := `{"type":"submission.accepted","deliveryId":"d2","submissionId":"s1","formId":"f1","requestId":"req-1",` +
		`"submittedAt":"2026-11-22T11:59:00Z","data":{"message":"hi"},"attachments":[]}`
	if got := string(hooks.sent[0].Body); got != want {
		t.Errorf("body %s\nwant %s", got, want)
	}
}

// A submission the spam gate tagged reaches webhooks with its verdict.
func TestATaggedSubmissionsWebhookBodyCarriesTheSpamVerdict(t *testing.T) {
	q := delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindWebhook}
	p := Payload{Webhook: "https://hooks.example.com/in", Spam: &SpamTag{Score: 1, Reasons: []string{`blockWords matched "viagra"`}}}
	out, err := NewRenderer(MailSettings{}, noSecrets{}, plainSealer{}, plainLinks{}, plainSpamLinks{}, fixedClock{}, plainTemplates{}).Render(context.Background(), q, p)
	if err != nil {
		t.Fatal(err)
	}
	want := `"spam":{"verdict":"spam","score":1,"reasons":["blockWords matched \"viagra\""]}`
	if !strings.Contains(string(out.Webhook.Body), want) {
		t.Errorf("body %s, want %s", out.Webhook.Body, want)
	}
	p.Spam = nil
	if out, _ := NewRenderer(MailSettings{}, noSecrets{}, plainSealer{}, plainLinks{}, plainSpamLinks{}, fixedClock{}, plainTemplates{}).Render(context.Background(), q, p); strings.Contains(string(out.Webhook.Body), `"spam"`) {
		t.Errorf("an untagged body has no spam object: %s", out.Webhook.Body)
	}
}

// A Slack or Discord delivery posts that service's message, built from the
// form's name and the forwarded fields, unsigned, to its integration's URL;
// without a URL it fails for good rather than posting anywhere else.
func TestDeliverPostsChatMessagesToTheIntegrationsURL(t *testing.T) {
	payload, _ := encodePayload(Payload{FormName: "Contact", Webhook: "https://per.example.com/h",
		Fields:      []submission.Field{{Name: "message", Value: "<@everyone> & *hi*"}},
		WebhookURLs: map[string]string{"ds": "https://hooks.slack.com/s", "dd": "https://discord.com/api/webhooks/1/x"}})
	tests := []struct {
		kind, id, url, body string
	}{
		{delivery.KindSlack, "ds", "https://hooks.slack.com/s", `{"text":"New submission to Contact\nmessage: \u0026lt;@everyone\u0026gt; \u0026amp; *hi*"}`},
		{delivery.KindDiscord, "dd", "https://discord.com/api/webhooks/1/x",
			`{"content":"New submission to Contact\nmessage: \u003c@` + "\u200b" + `everyone\\\u003e \u0026 \\*hi\\*","allowed_mentions":{"parse":[]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			store := &oneDelivery{payload: &SealedPayload{Ciphertext: payload}, claimed: ClaimedDelivery{
				Queued: delivery.Queued{DeliveryID: tt.id, SubmissionID: "s1", FormID: "f1", Kind: tt.kind}}}
			hooks := &sentWebhooks{}
			h := NewDeliverHandler(store, plainSealer{}, noMail{}, hooks, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{}, MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
			if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil {
				t.Fatal(err)
			}
			if len(hooks.sent) != 1 || hooks.sent[0].URL != tt.url || hooks.sent[0].Signature != "" || hooks.sent[0].ID != tt.id {
				t.Fatalf("sent %+v, want one unsigned post to %s", hooks.sent, tt.url)
			}
			if got := string(hooks.sent[0].Body); got != tt.body {
				t.Errorf("body %s\nwant %s", got, tt.body)
			}
			if len(store.recorded) != 1 || delivery.Status(store.recorded[0].Outcome) != "succeeded" {
				t.Errorf("recorded %+v, want one success", store.recorded)
			}
		})
	}
	t.Run("no URL", func(t *testing.T) {
		store := &oneDelivery{payload: &SealedPayload{Ciphertext: payload}, claimed: ClaimedDelivery{
			Queued: delivery.Queued{DeliveryID: "other", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindSlack}}}
		hooks := &sentWebhooks{}
		h := NewDeliverHandler(store, plainSealer{}, noMail{}, hooks, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{}, MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
		if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil {
			t.Fatal(err)
		}
		gave, ok := store.recorded[0].Outcome.(delivery.GaveUp)
		if len(hooks.sent) != 0 || !ok || !strings.Contains(gave.Reason, "no slack webhook URL") {
			t.Errorf("sent %+v, recorded %+v; want nothing sent and a final failure", hooks.sent, store.recorded)
		}
	})
}

// A receiver's Retry-After (application.RetryAfter from the sender) reaches
// the delivery: the next attempt is not before the receiver's time, and the
// recorded reason says what the receiver asked.
func TestARetryAfterPostponesTheNextAttemptToTheReceiversTime(t *testing.T) {
	payload, _ := encodePayload(Payload{Webhook: "https://hooks.example.com"})
	now := fixedClock{}.Now()
	busy := &RetryAfter{Wait: 10 * time.Minute, Err: errors.New("receiver answered 503")}
	tests := []struct {
		name    string
		before  int
		sendErr error
		want    delivery.Event
	}{
		{"the receiver's later time wins over the 5 s schedule", 0, busy,
			delivery.AttemptFailed{Attempt: 1, Reason: "receiver answered 503; it asked to retry after 600 s", NextAt: now.Add(10 * time.Minute), At: now}},
		{"found when wrapped", 0, fmt.Errorf("slack: %w", busy),
			delivery.AttemptFailed{Attempt: 1, Reason: "slack: receiver answered 503; it asked to retry after 600 s", NextAt: now.Add(10 * time.Minute), At: now}},
		{"the last attempt still gives up", delivery.ScheduleFor(delivery.KindWebhook).MaxAttempts() - 1, busy,
			delivery.GaveUp{Attempts: delivery.ScheduleFor(delivery.KindWebhook).MaxAttempts(), Reason: "receiver answered 503; it asked to retry after 600 s", At: now}},
		{"a permanent failure stays permanent", 0, &RetryAfter{Wait: time.Minute, Err: fmt.Errorf("%w: 400", ErrPermanent)},
			delivery.GaveUp{Attempts: 1, Reason: "permanent failure: 400; it asked to retry after 60 s", At: now}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &oneDelivery{payload: &SealedPayload{Ciphertext: payload}, claimed: ClaimedDelivery{Attempts: tt.before,
				Queued: delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindWebhook}}}
			h := NewDeliverHandler(store, plainSealer{}, noMail{}, webhookResult{tt.sendErr}, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{}, MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
			if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil {
				t.Fatal(err)
			}
			if len(store.recorded) != 1 || store.recorded[0].Outcome != tt.want {
				t.Errorf("recorded %+v, want outcome %#v", store.recorded, tt.want)
			}
		})
	}
}

type keptMail struct{ sent []Mail }

func (k *keptMail) Send(_ context.Context, m Mail) error {
	k.sent = append(k.sent, m)
	return nil
}

// A submission's files go to the notification email as attachments; a
// webhook gets their name, size and type only, never their content.
func TestDeliverAttachmentsToMailAndDescribesThemToWebhooks(t *testing.T) {
	at := time.Date(2026, 11, 22, 11, 59, 0, 0, time.UTC)
	payload, _ := encodePayload(Payload{Recipient: "inbox@example.com", Subject: "New", Webhook: "https://per.example.com/h",
		Fields:      []submission.Field{{Name: "message", Value: "hi"}},
		Attachments: []Attachment{{Field: "attachment", Name: "cv.pdf", Type: "application/pdf", Size: 9, Content: []byte("%PDF-1.4\n")}}})
	mail := &keptMail{}
	store := &oneDelivery{payload: &SealedPayload{Ciphertext: payload}, claimed: ClaimedDelivery{
		Queued: delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindEmail, At: at}}}
	h := NewDeliverHandler(store, plainSealer{}, mail, &sentWebhooks{}, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{}, MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
	if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if len(mail.sent) != 1 || len(mail.sent[0].Attachments) != 1 {
		t.Fatalf("sent %+v, want one mail with one attachment", mail.sent)
	}
	if a := mail.sent[0].Attachments[0]; a.Name != "cv.pdf" || a.Type != "application/pdf" || string(a.Content) != "%PDF-1.4\n" {
		t.Errorf("attachment %+v", a)
	}

	hooks := &sentWebhooks{}
	store = &oneDelivery{payload: &SealedPayload{Ciphertext: payload}, claimed: ClaimedDelivery{
		Queued: delivery.Queued{DeliveryID: "d2", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindWebhook, At: at}}}
	h = NewDeliverHandler(store, plainSealer{}, noMail{}, hooks, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{}, MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
	if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if len(hooks.sent) != 1 {
		t.Fatalf("sent %+v, want one webhook", hooks.sent)
	}
	body := string(hooks.sent[0].Body)
	if !strings.Contains(body, `"attachments":[{"field":"attachment","name":"cv.pdf","size":9,"type":"application/pdf"}]`) ||
		strings.Contains(body, "PDF-1.4") || strings.Contains(body, "JVBERi") {
		t.Errorf("webhook body %s: want the file described, never its content", body)
	}
}

// A submission's own commit hands its deliveries over with the payload in
// memory: the attempt sends from it and never opens the seal (a sealer that
// opens nothing would otherwise have the delivery wait for its key).
func TestAHandedOverDeliveryIsSentFromThePayloadInMemory(t *testing.T) {
	mail := &keptMail{}
	h := NewDeliverHandler(&oneDelivery{}, wrongKeySealer{}, mail, &sentWebhooks{}, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{}, MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
	opened := Payload{Recipient: "inbox@example.com", Subject: "New", Fields: []submission.Field{{Name: "message", Value: "hi"}}}
	a, err := h.Attempt(context.Background(), DueDelivery{Deadline: time.Now().Add(time.Minute), ClaimedDelivery: ClaimedDelivery{
		Queued:  delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindEmail, At: fixedClock{}.Now()},
		Payload: &SealedPayload{KeyID: "1a2b3c4d"}, Opened: &opened}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Outcome.(delivery.Succeeded); !ok {
		t.Fatalf("outcome %#v, want the mail sent", a.Outcome)
	}
	if len(mail.sent) != 1 || mail.sent[0].To != "inbox@example.com" || !strings.Contains(mail.sent[0].Text, "hi") {
		t.Fatalf("sent %+v, want the notification to inbox@example.com", mail.sent)
	}
}
