package application

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/formd/formd/domain/delivery"
)

// DeliveryLease is how long a claim holds. A worker spends at most half of it
// sending one claimed group, so no other worker re-claims a delivery that is
// still being attempted.
const DeliveryLease = 10 * time.Minute

// DeliverHandler performs deliveries (notification and autoresponder emails,
// webhooks, Slack, Discord and Telegram messages, Google Sheets rows,
// verification mails) with retries on a schedule with jitter.
type DeliverHandler struct {
	store         DeliveryStore
	sealer        Sealer
	mailer        Mailer
	outbound      Outbound
	tx            Transactor
	verifications Verifications
	// messages word the verification mails (verificationMail); a handler
	// that sends none, as in tests, may have none.
	messages Messages
	tokens   LinkTokens
	settings MailSettings
	clock    Clock
	log      *slog.Logger
	metrics  Metrics
	render   *Renderer
}

// NewDeliverHandler builds the handler; every dependency is required. log
// gets an error for each payload the configured keys cannot open.
func NewDeliverHandler(store DeliveryStore, sealer Sealer, mailer Mailer, outbound Outbound, secrets WebhookSecrets,
	tx Transactor, verifications Verifications, tokens LinkTokens, settings MailSettings, clock Clock, log *slog.Logger, metrics Metrics,
	links ObjectLinks, spamLinks SpamLinkTokens, templates TemplateEngine, messages Messages) *DeliverHandler {
	if store == nil || sealer == nil || mailer == nil || outbound == nil || secrets == nil || tx == nil || verifications == nil || tokens == nil || clock == nil || log == nil ||
		metrics == nil || links == nil || spamLinks == nil || templates == nil {
		panic("application: nil dependency of DeliverHandler")
	}
	return &DeliverHandler{store: store, sealer: sealer, mailer: mailer, outbound: outbound, tx: tx,
		verifications: verifications, tokens: tokens, settings: settings, clock: clock, log: log, metrics: metrics, messages: messages,
		render: NewRenderer(settings, secrets, sealer, links, spamLinks, clock, templates)}
}

// Handles reports whether this handler performs deliveries of kind.
func (h *DeliverHandler) Handles(kind string) bool {
	return kind == delivery.KindEmail || kind == delivery.KindAutoresponder || delivery.IsHTTP(kind) ||
		delivery.IsVerification(kind)
}

// attempt makes one attempt at a claimed delivery; the delivery decides
// what the outcome means (success, a retry at a later time, or giving up),
// so a failure holds up nothing else.
func (h *DeliverHandler) attempt(ctx context.Context, c ClaimedDelivery) (Attempt, error) {
	d := delivery.Resume(c.Queued, c.Attempts)
	var sendErr error
	switch {
	case !h.Handles(d.Kind()):
		sendErr = fmt.Errorf("%w: no sender for kind %s", ErrPermanent, d.Kind())
	case delivery.IsVerification(d.Kind()):
		// A verification mail has no sealed payload: it is rebuilt from
		// the verification record.
		sendErr = h.sendVerification(ctx, c.Queued)
	case c.Test:
		// Nor has an integration's test: it is built from the sample.
		sendErr = h.sendTest(ctx, c.Queued)
	case c.Payload == nil:
		sendErr = fmt.Errorf("%w: the submission's payload was already redacted", ErrPermanent)
	default:
		sendErr = h.send(ctx, c.Queued, *c.Payload, c.Opened)
	}
	now := h.clock.Now()
	var err error
	var retryAfter *RetryAfter
	switch {
	case sendErr == nil:
		_, err = d.Succeed(now)
	case errors.Is(sendErr, ErrUnsealable):
		// Loud, once per attempt: only the operator can fix it, and until
		// then the submission waits undelivered.
		h.log.Error("a sealed payload cannot be opened with the configured keys: its delivery waits and the payload is kept until formd runs with the key that sealed it",
			"deliveryId", c.DeliveryID, "submissionId", c.SubmissionID, "err", sendErr)
		_, err = d.Postpone(sendErr.Error()+"; the payload is kept and the delivery retried until formd runs with that key", now, rand.Float64())
	case errors.As(sendErr, &retryAfter) && !errors.Is(sendErr, ErrPermanent):
		_, err = d.FailNotBefore(sendErr.Error(), now.Add(retryAfter.Wait), now, rand.Float64())
	default:
		_, err = d.Fail(sendErr.Error(), errors.Is(sendErr, ErrPermanent), now, rand.Float64())
	}
	return Attempt{Queued: d.Queued(), Number: d.Attempts(), Outcome: d.Outcome(), Retries: c.Retries}, err
}

// DueDelivery is a claimed delivery (with its submission's sealed payload,
// when there is one still) and the time by which its attempt must end so
// that the claim outlives it.
type DueDelivery struct {
	ClaimedDelivery
	// Deadline is half the lease after the claim, by the wall clock (it
	// bounds the attempt's context): no other worker re-claims a delivery
	// that is still being attempted.
	Deadline time.Time
}

// Claim leases up to limit due deliveries, with their submissions' sealed
// payloads. The delivery workers run Claim, Attempt and Record as a
// pipeline (ports/events), so a process claims and records in groups
// however many attempts it makes at once.
func (h *DeliverHandler) Claim(ctx context.Context, limit int) ([]DueDelivery, error) {
	deadline := handOffDeadline(time.Now())
	claimed, err := h.store.ClaimDue(ctx, h.clock.Now(), DeliveryLease, limit)
	if err != nil || len(claimed) == 0 {
		return nil, err
	}
	due := make([]DueDelivery, len(claimed))
	for i, c := range claimed {
		due[i] = DueDelivery{ClaimedDelivery: c, Deadline: deadline}
	}
	return due, nil
}

// Attempt makes one attempt at a claimed delivery, ending it by its
// deadline. The outcome is not recorded until Record.
func (h *DeliverHandler) Attempt(ctx context.Context, d DueDelivery) (Attempt, error) {
	sendCtx, cancel := context.WithDeadline(ctx, d.Deadline)
	defer cancel()
	return h.attempt(sendCtx, d.ClaimedDelivery)
}

// Record records the outcomes of attempts in one transaction and counts
// them in the metrics once recorded. A record that failed may be made again
// with the same attempts (the delivery workers keep them until one lands):
// an attempt already recorded is skipped.
func (h *DeliverHandler) Record(ctx context.Context, attempts []Attempt) error {
	if err := h.store.RecordAttempts(ctx, attempts); err != nil {
		return err
	}
	for _, a := range attempts {
		h.metrics.DeliveryAttempted(a.Queued.Kind, delivery.Status(a.Outcome))
	}
	return nil
}
