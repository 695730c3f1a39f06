package delivery

import (
	"fmt"
	"time"
)

// Kinds of delivery.
const (
	KindEmail         = "email"
	KindAutoresponder = "autoresponder"
	KindWebhook       = "webhook"
	// KindSlack and KindDiscord are the posts of a form's Slack and Discord
	// integrations to their incoming webhooks.
	KindSlack   = "slack"
	KindDiscord = "discord"
	// KindTelegram is a message through the Telegram Bot API; KindGoogleSheets
	// a row appended to a Google sheet. Both go to operator-configured
	// service addresses, to a chat or spreadsheet the form's owner names.
	KindTelegram     = "telegram"
	KindGoogleSheets = "google_sheets"
	// KindAccountVerification and KindRecipientVerification are the mails
	// with a verification link. They send what the verification record says
	// at send time (the link token is derived from the verification id and
	// never stored), so they have no submission and no sealed payload.
	KindAccountVerification   = "account_verification"
	KindRecipientVerification = "recipient_verification"
	// KindPasswordReset is the mail with a password reset link, sent like
	// the verification mails.
	KindPasswordReset = "password_reset"
)

// IsHTTP reports whether kind is an integration's HTTP call (a webhook, a
// chat service's incoming webhook, a Telegram message or a Sheets row): such
// deliveries dial through the SSRF guard and follow the webhook's retry
// schedule.
func IsHTTP(kind string) bool {
	switch kind {
	case KindWebhook, KindSlack, KindDiscord, KindTelegram, KindGoogleSheets:
		return true
	}
	return false
}

// IsVerification reports whether kind is a verification mail.
func IsVerification(kind string) bool {
	return kind == KindAccountVerification || kind == KindRecipientVerification || kind == KindPasswordReset
}

// Event type names as stored.
const (
	QueuedType    = "delivery.queued.v1"
	SucceededType = "delivery.succeeded.v1"
	FailedType    = "delivery.attempt_failed.v1"
	GaveUpType    = "delivery.failed.v1"
)

// Event is something that happened to a delivery.
type Event interface{ EventType() string }

// Final reports whether an outcome ends the delivery.
func Final(e Event) bool {
	switch e.(type) {
	case Succeeded, GaveUp:
		return true
	}
	return false
}

// Status names the state an outcome leaves a delivery in.
func Status(e Event) string {
	switch e.(type) {
	case Succeeded:
		return "succeeded"
	case GaveUp:
		return "failed"
	case AttemptFailed:
		return "retrying"
	}
	return "queued"
}

// Queued records a delivery waiting to be attempted. What it sends lives in
// the submission's sealed payload, or for a verification mail in the
// verification it names, never in the event.
type Queued struct {
	DeliveryID string
	// SubmissionID is empty for a verification mail.
	SubmissionID string
	// FormID is empty for an account verification mail.
	FormID string
	// VerificationID is set only for a verification mail.
	VerificationID string
	Kind           string
	// Target is where the delivery goes, shown safely for the delivery log
	// (EmailTarget, WebhookTarget): the full address or URL stays sealed.
	Target string
	// Test marks a test of a form's integration (POST
	// /v1/forms/{formId}/integrations/{type}/test): it belongs to no
	// submission and has no sealed payload; like a verification mail it is
	// built at send time, from the sample message and the integration's
	// current settings, so it never holds anything a submitter sent.
	Test bool
	At   time.Time
}

// EventType implements the event interface.
func (Queued) EventType() string { return QueuedType }

// Check reports a queued event that names nothing to send: no delivery id,
// no kind, or neither a submission nor a verification nor a test of a
// form's integration. Such an event can never be delivered, whatever is
// retried.
func (q Queued) Check() error {
	if q.DeliveryID == "" || q.Kind == "" || (q.SubmissionID == "" && q.VerificationID == "" && !(q.Test && q.FormID != "")) {
		return fmt.Errorf("delivery: queued event %q names nothing to send", q.DeliveryID)
	}
	return nil
}

// Succeeded records a delivery that reached its target.
type Succeeded struct {
	Attempt int
	At      time.Time
}

// EventType implements the event interface.
func (Succeeded) EventType() string { return SucceededType }

// AttemptFailed records a failed attempt and when the next one is due.
type AttemptFailed struct {
	Attempt int
	Reason  string
	NextAt  time.Time
	At      time.Time
}

// EventType implements the event interface.
func (AttemptFailed) EventType() string { return FailedType }

// GaveUp records a delivery that ran out of attempts.
type GaveUp struct {
	Attempts int
	Reason   string
	At       time.Time
}

// EventType implements the event interface.
func (GaveUp) EventType() string { return GaveUpType }
