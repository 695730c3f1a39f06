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
	// Payload reads a submission's sealed payload; ok is false once redacted.
	Payload(ctx context.Context, submissionID string) (p SealedPayload, ok bool, err error)
	// RecordAttempt appends the attempt's outcome event and updates delivery
	// state in one transaction. When the delivery became final and it was
	// the submission's last pending one, the payload is deleted and
	// submission.redacted recorded in that same transaction.
	RecordAttempt(ctx context.Context, q delivery.Queued, attempt int, outcome delivery.Event) error
	// ClaimDue leases deliveries that are due (new, or waiting for a retry),
	// so one worker of one process attempts each; a lease that runs out (the
	// process died mid-attempt) makes the delivery due again.
	ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]ClaimedDelivery, error)
}

// ClaimedDelivery is a delivery leased for an attempt.
type ClaimedDelivery struct {
	delivery.Queued
	// Attempts made so far.
	Attempts int
}

// DeliveryLease bounds one attempt; an attempt never takes longer than its
// senders' timeouts, well inside it.
const DeliveryLease = 2 * time.Minute

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

// attempt makes one attempt at a claimed delivery and records its outcome: a
// failure is recorded with its next due time, so it holds up nothing else.
func (h *DeliverHandler) attempt(ctx context.Context, c ClaimedDelivery) error {
	q := c.Queued
	attempt := c.Attempts + 1
	if !h.Handles(q.Kind) {
		return h.store.RecordAttempt(ctx, q, attempt, delivery.GaveUp{Attempts: attempt, Reason: "no sender for kind " + q.Kind, At: h.clock.Now()})
	}
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

// RunDue claims up to limit due deliveries and attempts each; it returns how
// many it claimed.
func (h *DeliverHandler) RunDue(ctx context.Context, limit int) (int, error) {
	due, err := h.store.ClaimDue(ctx, h.clock.Now(), DeliveryLease, limit)
	if err != nil {
		return 0, err
	}
	for _, c := range due {
		if err := h.attempt(ctx, c); err != nil {
			return 0, err
		}
	}
	return len(due), nil
}
