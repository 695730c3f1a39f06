package form

import (
	"encoding/json"
	"time"
)

// Event is something that happened to a form. Its type name carries a version
// so stored events can be upcast when their shape changes.
type Event interface {
	EventType() string
}

// Event type names as stored.
const (
	CreatedType               = "form.created.v1"
	SettingsChangedType       = "form.settings_changed.v1"
	RecipientVerifiedType     = "form.recipient_verified.v1"
	IntegrationConfiguredType = "form.integration_configured.v1"
	WebhookSecretIssuedType   = "form.webhook_secret_issued.v1"
)

// Created records a new form. The access key itself is never recorded.
type Created struct {
	FormID          string
	AccountID       string
	WorkspaceID     string
	AccessKeyHash   string
	AccessKeyPrefix string
	Settings        Settings
	At              time.Time
}

// EventType implements Event.
func (Created) EventType() string { return CreatedType }

// Change is one setting's value before and after a change.
type Change struct {
	Field string          `json:"field"`
	From  json.RawMessage `json:"from"`
	To    json.RawMessage `json:"to"`
}

// SettingsChanged records new settings and, for the audit trail, what changed.
type SettingsChanged struct {
	Changes  []Change
	Settings Settings
	At       time.Time
	// RecipientReset is true when a new recipient email needs verifying again.
	RecipientReset bool
}

// EventType implements Event.
func (SettingsChanged) EventType() string { return SettingsChangedType }

// RecipientVerified records that the recipient followed their verification link.
type RecipientVerified struct {
	RecipientEmail string
	At             time.Time
}

// EventType implements Event.
func (RecipientVerified) EventType() string { return RecipientVerifiedType }

// IntegrationConfigured records an integration's new configuration and, for
// the audit trail, what changed. Secrets are never part of it.
type IntegrationConfigured struct {
	Changes     []Change
	Integration Integration
	At          time.Time
}

// EventType implements Event.
func (IntegrationConfigured) EventType() string { return IntegrationConfiguredType }

// WebhookSecretIssued records a new signing secret of the form's webhook by
// its id and prefix: the secret itself is stored sealed, outside events.
// After a rotation, the previous secret signs too until PreviousExpiresAt.
type WebhookSecretIssued struct {
	SecretID             string
	SecretPrefix         string
	PreviousSecretPrefix string
	PreviousExpiresAt    time.Time
	At                   time.Time
}

// EventType implements Event.
func (WebhookSecretIssued) EventType() string { return WebhookSecretIssuedType }

// SubmissionsErasedType is the type name of SubmissionsErased as stored.
const SubmissionsErasedType = "form.submissions_erased.v1"

// How an erasure chose its submissions.
const (
	ErasedByID    = "id"
	ErasedByEmail = "email"
)

// SubmissionsErased records, for the audit trail, that archived submissions
// were shredded at an owner's request. It names the submission erased by id,
// and for an erasure by submitter email only the address's keyed hash, never
// the address.
type SubmissionsErased struct {
	Count        int
	By           string
	SubmissionID string
	EmailHash    string
	At           time.Time
}

// EventType implements Event.
func (SubmissionsErased) EventType() string { return SubmissionsErasedType }

// SpamReviewedType is the type name of SpamReviewed as stored.
const SpamReviewedType = "form.spam_reviewed.v1"

// What the owner judged a submission of the Spam folder to be.
const (
	// ReviewedNotSpam released it: its deliveries went out.
	ReviewedNotSpam = "not_spam"
	// ReviewedSpam confirmed it: it was shredded.
	ReviewedSpam = "spam"
	// ReviewedDeleted deleted it unjudged: shredded, the filter not taught.
	ReviewedDeleted = "deleted"
)

// SpamReviewed records, for the audit trail, that the owner judged a
// submission the spam filter held or tagged: released as not spam,
// confirmed as spam or deleted. Learned says whether the content
// classifier was taught the judgement.
type SpamReviewed struct {
	SubmissionID string
	Verdict      string
	Learned      bool
	At           time.Time
}

// EventType implements Event.
func (SpamReviewed) EventType() string { return SpamReviewedType }
