package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// Transactor runs fn in one database transaction: every aggregate saved in it
// is appended, projected and published together or not at all. When a stream
// changed concurrently, fn is run again on fresh state.
type Transactor interface {
	InTx(ctx context.Context, md Metadata, fn func(tx Tx) error) error
}

// Tx is the unit of work of one transaction: the union of the stores
// below, every one writing in that transaction. Helpers a use case calls in
// a transaction ask for the narrow store they use.
type Tx interface {
	FormStreams
	AccountStreams
	VerificationStreams
	VerificationThrottle
	PasswordResetThrottle
	Sessions
	WebhookSecretStore
	CaptchaSecretStore
}

// FormStreams loads and saves forms.
type FormStreams interface {
	LoadForm(ctx context.Context, id string) (*form.Form, error)
	SaveForm(ctx context.Context, f *form.Form) error
}

// AccountStreams loads and saves accounts.
type AccountStreams interface {
	LoadAccount(ctx context.Context, id string) (*account.Account, error)
	SaveAccount(ctx context.Context, a *account.Account) error
}

// VerificationStreams loads and saves verifications, and queues the
// deliveries that mail their links.
type VerificationStreams interface {
	LoadVerification(ctx context.Context, id string) (*verification.Verification, error)
	SaveVerification(ctx context.Context, v *verification.Verification) error
	// QueueDelivery appends a delivery.queued event that belongs to no
	// submission (a verification mail), to be queued by the delivery-queue
	// consumer group like every other delivery.
	QueueDelivery(ctx context.Context, q delivery.Queued) error
}

// VerificationThrottle counts the verification mails requested lately.
type VerificationThrottle interface {
	// RecentVerificationRequests says when verifications were requested
	// since a time: of kind for the subject, to the address (any kind or
	// subject), and of kind by the account. It first locks the address and
	// the account until the transaction ends, so that concurrent requests
	// for either, in any process, are counted one after the other.
	RecentVerificationRequests(ctx context.Context, kind verification.Kind, subjectID, accountID, email string, since time.Time) (verification.RecentRequests, error)
}

// PasswordResetThrottle counts the password resets requested lately.
type PasswordResetThrottle interface {
	// PasswordResetRequests says when password resets were requested for
	// the address since a time, whether or not an account uses it; it first
	// locks the address until the transaction ends, as
	// RecentVerificationRequests does. RecordPasswordResetRequest counts one
	// more at a time.
	PasswordResetRequests(ctx context.Context, email string, since time.Time) ([]time.Time, error)
	RecordPasswordResetRequest(ctx context.Context, email string, at time.Time) error
}

// Sessions stores and ends sessions.
type Sessions interface {
	// CreateSession stores a session under the hash of its token.
	CreateSession(ctx context.Context, tokenHash []byte, accountID string, expiresAt time.Time) error
	// EndSessions ends every session of the account (a password reset): in
	// the transaction, so a new password and the old sessions never coexist.
	EndSessions(ctx context.Context, accountID string) error
	// EndSession ends the one session stored under tokenHash (a sign-out);
	// none is no error.
	EndSession(ctx context.Context, tokenHash []byte) error
}

// WebhookSecretStore keeps form webhooks' sealed signing secrets.
type WebhookSecretStore interface {
	// StoreWebhookSecret keeps a form webhook's new sealed signing secret.
	// The form's secrets that were current stop signing at retireAt (none
	// when it is zero: the first secret).
	StoreWebhookSecret(ctx context.Context, s StoredWebhookSecret, retireAt time.Time) error
}

// CaptchaSecretStore keeps form captchas' sealed secrets.
type CaptchaSecretStore interface {
	// StoreCaptchaSecret keeps a form captcha's new sealed secret in place
	// of the one it had; DeleteCaptchaSecret removes it (the captcha is off,
	// or needs none).
	StoreCaptchaSecret(ctx context.Context, s StoredCaptchaSecret) error
	DeleteCaptchaSecret(ctx context.Context, formID string) error
}
