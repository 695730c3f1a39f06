package application

import (
	"context"
	"time"
)

// WebhookSigningSecrets asks for the secrets that sign a form's webhook
// deliveries now. It is for the delivery workers only: no route shows it.
type WebhookSigningSecrets struct {
	FormID string
}

// WebhookSigningSecretsHandler unseals a form webhook's signing secrets.
type WebhookSigningSecretsHandler struct {
	secrets WebhookSecrets
	sealer  Sealer
	clock   Clock
}

// NewWebhookSigningSecretsHandler builds the handler; every dependency is required.
func NewWebhookSigningSecretsHandler(secrets WebhookSecrets, sealer Sealer, clock Clock) *WebhookSigningSecretsHandler {
	if secrets == nil || sealer == nil || clock == nil {
		panic("application: nil dependency of WebhookSigningSecretsHandler")
	}
	return &WebhookSigningSecretsHandler{secrets: secrets, sealer: sealer, clock: clock}
}

// Handle returns the secrets ("whsec_…"), the current one first, then those
// rotated out less than form.WebhookSecretOverlap ago; none when the form's
// webhook has no secret. Callers must never log them.
func (h *WebhookSigningSecretsHandler) Handle(ctx context.Context, q WebhookSigningSecrets) ([]string, error) {
	return signingSecrets(ctx, h.secrets, h.sealer, q.FormID, h.clock.Now())
}

// signingSecrets unseals the secrets valid at now, the current one first.
func signingSecrets(ctx context.Context, secrets WebhookSecrets, sealer Sealer, formID string, now time.Time) ([]string, error) {
	stored, err := secrets.SigningSecrets(ctx, formID, now)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(stored))
	for _, s := range stored {
		plain, err := sealer.Open(webhookSecretAAD(s.ID), s.Sealed)
		if err != nil {
			return nil, err
		}
		out = append(out, string(plain))
	}
	return out, nil
}
