package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/delivery"
)

// DeliveryStore keeps delivery state and the sealed payloads deliveries read.
type DeliveryStore interface {
	// RecordAttempts appends each attempt's outcome event and updates
	// delivery state in one transaction. A submission whose last pending
	// delivery became final loses its payload, and submission.redacted is
	// recorded, in that same transaction. An attempt someone else already
	// recorded (a duplicate run after a lost lease) is skipped.
	RecordAttempts(ctx context.Context, attempts []Attempt) error
	// ClaimDue leases deliveries that are due (new, or waiting for a retry),
	// so one worker of one process attempts each; a lease that runs out (the
	// process died mid-attempt) makes the delivery due again. Each comes
	// with its submission's sealed payload, when there is one still.
	ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]ClaimedDelivery, error)
}

// Attempt is the outcome of one attempt at a delivery.
type Attempt struct {
	Queued  delivery.Queued
	Number  int
	Outcome delivery.Event
	// Retries is how many manual retries the delivery's stream holds.
	Retries int
}

// ClaimedDelivery is a delivery leased for an attempt.
type ClaimedDelivery struct {
	delivery.Queued
	// Attempts made so far.
	Attempts int
	// Retries is how many times the delivery was retried by hand.
	Retries int
	// Payload is the submission's sealed payload, read with the claim; nil
	// for a redacted submission and for deliveries that have none
	// (verification mails, integration tests).
	Payload *SealedPayload
	// Opened is the same payload, opened: set only on the deliveries a
	// submission's own commit hands to this process's workers, which have
	// it in memory, so their attempt neither unseals nor decodes it.
	// Shared by a submission's deliveries, so read only.
	Opened *Payload
}

// DeliveryQueue is the queue delivery workers claim from.
type DeliveryQueue interface {
	// Queue adds a delivery, due at once, unless it is already queued. It
	// writes in the transaction of the event message that ctx carries, the
	// one that acknowledges the message.
	Queue(ctx context.Context, q delivery.Queued) error
}

// Verifications finds verifications for the delivery workers, which rebuild
// a verification mail from its record at send time.
type Verifications interface {
	VerificationByID(ctx context.Context, id string) (VerificationRecord, error)
}
