package application

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"time"

	"github.com/formd/formd/domain/form"
)

// newWebhookSecret makes a signing secret in the Standard Webhooks format:
// "whsec_" and the standard base64 of 32 random bytes, the bytes that sign.
func newWebhookSecret() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b[:])
}

// webhookSecretAAD binds a sealed secret to its id, so a sealed blob moved
// to another secret's row does not open.
func webhookSecretAAD(secretID string) string { return "webhook-secret:" + secretID }

// issueWebhookSecret makes a new secret for the form's webhook, stores it
// sealed and records it on the form, in the caller's transaction. Any
// current secret keeps signing until the overlap the event records. It
// returns the secret, to be shown once.
func issueWebhookSecret(ctx context.Context, tx WebhookSecretStore, f *form.Form, ids IDs, sealer Sealer, now time.Time) (string, error) {
	secret, id := newWebhookSecret(), ids.New()
	issued, err := f.IssueWebhookSecret(id, secret, now)
	if err != nil {
		return "", err
	}
	sealed, err := sealer.Seal(webhookSecretAAD(id), []byte(secret))
	if err != nil {
		return "", err
	}
	err = tx.StoreWebhookSecret(ctx, StoredWebhookSecret{
		ID: id, FormID: f.ID(), Prefix: issued.SecretPrefix, Sealed: sealed, CreatedAt: issued.At,
	}, issued.PreviousExpiresAt)
	return secret, err
}
