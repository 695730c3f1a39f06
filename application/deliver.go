package application

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/formd/formd/domain/delivery"
)

// DeliveryStore keeps delivery state and the sealed payloads deliveries read.
type DeliveryStore interface {
	// Attempts is how many attempts a delivery has had, and whether it is final.
	Attempts(ctx context.Context, deliveryID string) (attempts int, final bool, err error)
	// Payload reads a submission's sealed payload; ok is false once redacted.
	Payload(ctx context.Context, submissionID string) (p SealedPayload, ok bool, err error)
	// RecordAttempt appends the attempt's outcome event and updates delivery
	// state in one transaction. When the delivery became final and it was
	// the submission's last pending one, the payload is deleted and
	// submission.redacted recorded in that same transaction.
	RecordAttempt(ctx context.Context, q delivery.Queued, attempt int, outcome delivery.Event) error
	// ClaimDue leases deliveries whose retry is due, so one process retries each.
	ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]delivery.Queued, error)
}

// DeliverHandler performs deliveries (notification and autoresponder emails,
// webhooks) with retries on a schedule with jitter.
type DeliverHandler struct {
	store    DeliveryStore
	sealer   Sealer
	mailer   Mailer
	webhooks WebhookSender
	settings MailSettings
	clock    Clock
}

// NewDeliverHandler builds the handler.
func NewDeliverHandler(store DeliveryStore, sealer Sealer, mailer Mailer, webhooks WebhookSender, settings MailSettings, clock Clock) *DeliverHandler {
	if store == nil || sealer == nil || mailer == nil || webhooks == nil || clock == nil {
		panic("application: nil dependency of DeliverHandler")
	}
	return &DeliverHandler{store: store, sealer: sealer, mailer: mailer, webhooks: webhooks, settings: settings, clock: clock}
}

// Handles reports whether this handler performs deliveries of kind.
func (h *DeliverHandler) Handles(kind string) bool {
	return kind == delivery.KindEmail || kind == delivery.KindAutoresponder || kind == delivery.KindWebhook
}

// Handle makes one attempt at a delivery and records its outcome. A failed
// attempt is recorded with its next due time and returns nil, so it never
// holds the ordered stream of other deliveries.
func (h *DeliverHandler) Handle(ctx context.Context, q delivery.Queued) error {
	if !h.Handles(q.Kind) {
		return nil
	}
	attempts, final, err := h.store.Attempts(ctx, q.DeliveryID)
	if err != nil || final {
		return err
	}
	attempt := attempts + 1
	sendErr := h.send(ctx, q)
	now := h.clock.Now()
	var outcome delivery.Event
	switch {
	case sendErr == nil:
		outcome = delivery.Succeeded{Attempt: attempt, At: now}
	case attempt >= delivery.MaxAttempts || errors.Is(sendErr, ErrPermanent):
		outcome = delivery.GaveUp{Attempts: attempt, Reason: sendErr.Error(), At: now}
	default:
		wait := delivery.Backoff(attempt)
		wait += time.Duration(rand.Int64N(int64(wait / 5))) // up to 20% jitter
		outcome = delivery.AttemptFailed{Attempt: attempt, Reason: sendErr.Error(), NextAt: now.Add(wait), At: now}
	}
	return h.store.RecordAttempt(ctx, q, attempt, outcome)
}

// ErrPermanent marks failures no retry can fix (the payload is gone, the
// receiver refused the request).
var ErrPermanent = errors.New("permanent failure")

// Webhook is one JSON POST.
type Webhook struct {
	ID   string
	URL  string
	Body []byte
}

// WebhookSender posts webhooks.
type WebhookSender interface {
	Send(ctx context.Context, w Webhook) error
}

// webhookBody is what a webhook receives: the forwarded custom fields only.
type webhookBody struct {
	DeliveryID   string            `json:"deliveryId"`
	SubmissionID string            `json:"submissionId"`
	FormID       string            `json:"formId"`
	Data         map[string]string `json:"data"`
}

func (h *DeliverHandler) send(ctx context.Context, q delivery.Queued) error {
	sealed, ok, err := h.store.Payload(ctx, q.SubmissionID)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: the submission's payload was already redacted", ErrPermanent)
	}
	plain, err := h.sealer.Open(q.SubmissionID, sealed)
	if err != nil {
		return fmt.Errorf("%w: unseal payload: %v", ErrPermanent, err)
	}
	var p Payload
	if err := json.Unmarshal(plain, &p); err != nil {
		return fmt.Errorf("%w: decode payload: %v", ErrPermanent, err)
	}
	if q.Kind == delivery.KindWebhook {
		body, err := json.Marshal(webhookBody{DeliveryID: q.DeliveryID, SubmissionID: q.SubmissionID, FormID: q.FormID, Data: echo(p.Fields)})
		if err != nil {
			return err
		}
		return h.webhooks.Send(ctx, Webhook{ID: q.DeliveryID, URL: p.Webhook, Body: body})
	}
	m := Mail{DeliveryID: q.DeliveryID, MessageID: q.DeliveryID + "@formd", From: h.settings.From}
	if q.Kind == delivery.KindAutoresponder {
		if p.Autoresponder == nil || p.SubmitterEmail == "" {
			return fmt.Errorf("%w: no autoresponder in payload", ErrPermanent)
		}
		m.FromName, m.To, m.ReplyTo = p.FromName, p.SubmitterEmail, p.Recipient
		m.Subject, m.Text = p.Autoresponder.Subject, p.Autoresponder.Message+"\n"
	} else {
		m.FromName, m.To, m.Cc, m.ReplyTo, m.Subject = p.FromName, p.Recipient, p.CC, p.ReplyTo, p.Subject
		m.Text = notificationText(p)
	}
	return h.mailer.Send(ctx, m)
}

// notificationText lists the submitted fields in their submitted order.
func notificationText(p Payload) string {
	var b strings.Builder
	fmt.Fprintf(&b, "New submission to %s\n\n", p.FormName)
	for _, f := range p.Fields {
		v := f.Value
		if strings.Contains(v, "\n") {
			v = "\n  " + strings.ReplaceAll(v, "\n", "\n  ")
		}
		fmt.Fprintf(&b, "%s: %s\n", f.Name, v)
	}
	return b.String()
}

// RetryDue re-attempts deliveries whose retry time has come; it returns how
// many it attempted.
func (h *DeliverHandler) RetryDue(ctx context.Context, limit int) (int, error) {
	due, err := h.store.ClaimDue(ctx, h.clock.Now(), 2*time.Minute, limit)
	if err != nil {
		return 0, err
	}
	for _, q := range due {
		if err := h.Handle(ctx, q); err != nil {
			return 0, err
		}
	}
	return len(due), nil
}
