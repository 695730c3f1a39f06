package eventcodec

import (
	"time"

	"github.com/formd/formd/domain/delivery"
)

func init() {
	Register(func(e delivery.Queued) deliveryQueuedV1 {
		return deliveryQueuedV1{DeliveryID: e.DeliveryID, SubmissionID: e.SubmissionID, FormID: e.FormID,
			VerificationID: e.VerificationID, Kind: e.Kind, Target: e.Target, Test: e.Test, At: e.At}
	}, func(s deliveryQueuedV1) delivery.Queued {
		return delivery.Queued{DeliveryID: s.DeliveryID, SubmissionID: s.SubmissionID, FormID: s.FormID,
			VerificationID: s.VerificationID, Kind: s.Kind, Target: s.Target, Test: s.Test, At: s.At}
	})
	Register(func(e delivery.Succeeded) deliverySucceededV1 {
		return deliverySucceededV1{Attempt: e.Attempt, At: e.At}
	},
		func(s deliverySucceededV1) delivery.Succeeded {
			return delivery.Succeeded{Attempt: s.Attempt, At: s.At}
		})
	Register(func(e delivery.AttemptFailed) deliveryAttemptFailedV1 {
		return deliveryAttemptFailedV1{Attempt: e.Attempt, Reason: e.Reason, NextAt: e.NextAt, At: e.At}
	}, func(s deliveryAttemptFailedV1) delivery.AttemptFailed {
		return delivery.AttemptFailed{Attempt: s.Attempt, Reason: s.Reason, NextAt: s.NextAt, At: s.At}
	})
	Register(func(e delivery.RetryRequested) deliveryRetryRequestedV1 {
		return deliveryRetryRequestedV1{At: e.At}
	}, func(s deliveryRetryRequestedV1) delivery.RetryRequested {
		return delivery.RetryRequested{At: s.At}
	})
	Register(func(e delivery.GaveUp) deliveryFailedV1 {
		return deliveryFailedV1{Attempts: e.Attempts, Reason: e.Reason, At: e.At}
	}, func(s deliveryFailedV1) delivery.GaveUp {
		return delivery.GaveUp{Attempts: s.Attempts, Reason: s.Reason, At: s.At}
	})
}

// deliveryQueuedV1 is delivery.queued.v1 as stored. What the delivery sends
// lives in the sealed payload (or the verification it names), never here.
// VerificationID came later; it is omitted when empty, so a submission's
// delivery is stored exactly as before and older rows read unchanged, with
// no new schema version needed. Target (the recipient's domain or the
// webhook's host, never a full address or URL) came later the same way, and
// so did Test (an integration test's delivery, which names no submission).
type deliveryQueuedV1 struct {
	DeliveryID     string    `json:"deliveryId"`
	SubmissionID   string    `json:"submissionId"`
	FormID         string    `json:"formId"`
	VerificationID string    `json:"verificationId,omitempty"`
	Kind           string    `json:"kind"`
	Target         string    `json:"target,omitempty"`
	Test           bool      `json:"test,omitempty"`
	At             time.Time `json:"at"`
}

// deliveryRetryRequestedV1 is delivery.retry_requested.v1 as stored; who
// asked is in the event's metadata.
type deliveryRetryRequestedV1 struct {
	At time.Time `json:"at"`
}

// deliverySucceededV1 is delivery.succeeded.v1 as stored.
type deliverySucceededV1 struct {
	Attempt int       `json:"attempt"`
	At      time.Time `json:"at"`
}

// deliveryAttemptFailedV1 is delivery.attempt_failed.v1 as stored.
type deliveryAttemptFailedV1 struct {
	Attempt int       `json:"attempt"`
	Reason  string    `json:"reason"`
	NextAt  time.Time `json:"nextAt"`
	At      time.Time `json:"at"`
}

// deliveryFailedV1 is delivery.failed.v1 (domain delivery.GaveUp) as stored.
type deliveryFailedV1 struct {
	Attempts int       `json:"attempts"`
	Reason   string    `json:"reason"`
	At       time.Time `json:"at"`
}
