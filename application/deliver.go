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
	// Payloads reads the sealed payloads of submissions; a redacted one is
	// absent from the map.
	Payloads(ctx context.Context, submissionIDs []string) (map[string]SealedPayload, error)
	// RecordAttempts appends each attempt's outcome event and updates
	// delivery state in one transaction. A submission whose last pending
	// delivery became final loses its payload, and submission.redacted is
	// recorded, in that same transaction. An attempt someone else already
	// recorded (a duplicate run after a lost lease) is skipped.
	RecordAttempts(ctx context.Context, attempts []Attempt) error
	// ClaimDue leases deliveries that are due (new, or waiting for a retry),
	// so one worker of one process attempts each; a lease that runs out (the
	// process died mid-attempt) makes the delivery due again.
	ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]ClaimedDelivery, error)
}

// Attempt is the outcome of one attempt at a delivery.
type Attempt struct {
	Queued  delivery.Queued
	Number  int
	Outcome delivery.Event
}

// ClaimedDelivery is a delivery leased for an attempt.
type ClaimedDelivery struct {
	delivery.Queued
	// Attempts made so far.
	Attempts int
}

// DeliveryLease is how long a claim holds. A worker spends at most half of it
// sending one claimed group, so no other worker re-claims a delivery that is
// still being attempted.
const DeliveryLease = 10 * time.Minute

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

// attempt makes one attempt at a claimed delivery; the delivery decides
// what the outcome means (success, a retry at a later time, or giving up),
// so a failure holds up nothing else.
func (h *DeliverHandler) attempt(ctx context.Context, c ClaimedDelivery, sealed SealedPayload, found bool) (Attempt, error) {
	d := delivery.Resume(c.Queued, c.Attempts)
	var sendErr error
	switch {
	case !h.Handles(d.Kind()):
		sendErr = fmt.Errorf("%w: no sender for kind %s", ErrPermanent, d.Kind())
	case !found:
		sendErr = fmt.Errorf("%w: the submission's payload was already redacted", ErrPermanent)
	default:
		sendErr = h.send(ctx, c.Queued, sealed)
	}
	now := h.clock.Now()
	var err error
	if sendErr == nil {
		_, err = d.Succeed(now)
	} else {
		_, err = d.Fail(sendErr.Error(), errors.Is(sendErr, ErrPermanent), now, rand.Float64())
	}
	return Attempt{Queued: d.Queued(), Number: d.Attempts(), Outcome: d.Outcome()}, err
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

func (h *DeliverHandler) send(ctx context.Context, q delivery.Queued, sealed SealedPayload) error {
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

// RunDue claims up to limit due deliveries, attempts each and records every
// outcome in one transaction; it returns how many it claimed.
func (h *DeliverHandler) RunDue(ctx context.Context, limit int) (int, error) {
	due, err := h.store.ClaimDue(ctx, h.clock.Now(), DeliveryLease, limit)
	if err != nil || len(due) == 0 {
		return 0, err
	}
	ids := make([]string, 0, len(due))
	for _, c := range due {
		ids = append(ids, c.SubmissionID)
	}
	payloads, err := h.store.Payloads(ctx, ids)
	if err != nil {
		return 0, err
	}
	sendCtx, cancel := context.WithTimeout(ctx, DeliveryLease/2)
	defer cancel()
	attempts := make([]Attempt, len(due))
	for i, c := range due {
		sealed, found := payloads[c.SubmissionID]
		if attempts[i], err = h.attempt(sendCtx, c, sealed, found); err != nil {
			return 0, err
		}
	}
	return len(due), h.store.RecordAttempts(ctx, attempts)
}
