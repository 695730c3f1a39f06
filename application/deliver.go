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
	tokens        LinkTokens
	settings      MailSettings
	clock         Clock
	log           *slog.Logger
	metrics       Metrics
	render        *Renderer
}

// NewDeliverHandler builds the handler; every dependency is required. log
// gets an error for each payload the configured keys cannot open.
func NewDeliverHandler(store DeliveryStore, sealer Sealer, mailer Mailer, outbound Outbound, secrets WebhookSecrets,
	tx Transactor, verifications Verifications, tokens LinkTokens, settings MailSettings, clock Clock, log *slog.Logger, metrics Metrics,
	links ObjectLinks) *DeliverHandler {
	if store == nil || sealer == nil || mailer == nil || outbound == nil || secrets == nil || tx == nil || verifications == nil || tokens == nil || clock == nil || log == nil ||
		metrics == nil || links == nil {
		panic("application: nil dependency of DeliverHandler")
	}
	return &DeliverHandler{store: store, sealer: sealer, mailer: mailer, outbound: outbound, tx: tx,
		verifications: verifications, tokens: tokens, settings: settings, clock: clock, log: log, metrics: metrics,
		render: NewRenderer(settings, secrets, sealer, links, clock)}
}

// Handles reports whether this handler performs deliveries of kind.
func (h *DeliverHandler) Handles(kind string) bool {
	return kind == delivery.KindEmail || kind == delivery.KindAutoresponder || delivery.IsHTTP(kind) ||
		delivery.IsVerification(kind)
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
	case delivery.IsVerification(d.Kind()):
		// A verification mail has no sealed payload: it is rebuilt from
		// the verification record.
		sendErr = h.sendVerification(ctx, c.Queued)
	case c.Test:
		// Nor has an integration's test: it is built from the sample.
		sendErr = h.sendTest(ctx, c.Queued)
	case !found:
		sendErr = fmt.Errorf("%w: the submission's payload was already redacted", ErrPermanent)
	default:
		sendErr = h.send(ctx, c.Queued, sealed)
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

// DeliverDue asks for one round of delivery: claim up to Limit due
// deliveries and attempt each.
type DeliverDue struct {
	Limit int
}

// Handle claims up to cmd.Limit due deliveries, attempts each and records
// every outcome in one transaction; it returns how many it claimed. The
// delivery workers run the same three steps (Claim, Attempt, Record) as a
// pipeline instead, so a process claims and records in groups however many
// attempts it makes at once.
func (h *DeliverHandler) Handle(ctx context.Context, cmd DeliverDue) (int, error) {
	due, err := h.Claim(ctx, cmd.Limit)
	if err != nil || len(due) == 0 {
		return 0, err
	}
	attempts := make([]Attempt, len(due))
	for i, d := range due {
		if attempts[i], err = h.Attempt(ctx, d); err != nil {
			return 0, err
		}
	}
	return len(due), h.Record(ctx, attempts)
}

// DueDelivery is a claimed delivery with what its attempt reads: the sealed
// payload of its submission, when there is one still, and the time by which
// the attempt must end so that the claim outlives it.
type DueDelivery struct {
	ClaimedDelivery
	Sealed SealedPayload
	// Found says the submission's payload was read; false for a redacted
	// submission and for deliveries that have none (verification mails,
	// integration tests).
	Found bool
	// Deadline is half the lease after the claim, by the wall clock (it
	// bounds the attempt's context): no other worker re-claims a delivery
	// that is still being attempted.
	Deadline time.Time
}

// Claim leases up to limit due deliveries, with their submissions' sealed
// payloads.
func (h *DeliverHandler) Claim(ctx context.Context, limit int) ([]DueDelivery, error) {
	deadline := time.Now().Add(DeliveryLease / 2)
	claimed, err := h.store.ClaimDue(ctx, h.clock.Now(), DeliveryLease, limit)
	if err != nil || len(claimed) == 0 {
		return nil, err
	}
	due := make([]DueDelivery, len(claimed))
	for i, c := range claimed {
		due[i] = DueDelivery{ClaimedDelivery: c, Found: c.Payload != nil, Deadline: deadline}
		if c.Payload != nil {
			due[i].Sealed = *c.Payload
		}
	}
	return due, nil
}

// Attempt makes one attempt at a claimed delivery, ending it by its
// deadline. The outcome is not recorded until Record.
func (h *DeliverHandler) Attempt(ctx context.Context, d DueDelivery) (Attempt, error) {
	sendCtx, cancel := context.WithDeadline(ctx, d.Deadline)
	defer cancel()
	return h.attempt(sendCtx, d.ClaimedDelivery, d.Sealed, d.Found)
}

// Record records the outcomes of attempts in one transaction and counts
// them in the metrics once recorded: an attempt whose record failed is made
// again after its lease.
func (h *DeliverHandler) Record(ctx context.Context, attempts []Attempt) error {
	if err := h.store.RecordAttempts(ctx, attempts); err != nil {
		return err
	}
	for _, a := range attempts {
		h.metrics.DeliveryAttempted(a.Queued.Kind, delivery.Status(a.Outcome))
	}
	return nil
}
