package application

import (
	"context"
	"time"
)

// WebhookSecrets reads the sealed signing secrets of form webhooks.
type WebhookSecrets interface {
	// SigningSecrets lists the form's secrets that still sign at now: the
	// current one first, then rotated-out ones until they expire.
	SigningSecrets(ctx context.Context, formID string, now time.Time) ([]StoredWebhookSecret, error)
}

// StoredWebhookSecret is a form webhook's signing secret as stored: sealed.
type StoredWebhookSecret struct {
	ID        string
	FormID    string
	Prefix    string
	Sealed    SealedPayload
	CreatedAt time.Time
	// ExpiresAt is when a rotated-out secret stops signing; zero for the
	// current one.
	ExpiresAt time.Time
}

// CaptchaSecrets reads the sealed secrets of form captchas.
type CaptchaSecrets interface {
	// CaptchaSecret is the form's current captcha secret; domain.ErrNotFound
	// when it has none.
	CaptchaSecret(ctx context.Context, formID string) (StoredCaptchaSecret, error)
}

// StoredCaptchaSecret is a form captcha's provider secret as stored: sealed,
// under the id the form's settings name it by.
type StoredCaptchaSecret struct {
	ID        string
	FormID    string
	Sealed    SealedPayload
	CreatedAt time.Time
}
