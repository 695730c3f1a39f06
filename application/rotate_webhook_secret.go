package application

import (
	"context"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
)

// RotateWebhookSecret is POST /v1/forms/{formId}/integrations/webhook/rotate-secret.
type RotateWebhookSecret struct {
	Caller    Session
	RequestID string
	FormID    string
}

// RotateWebhookSecretHandler gives a form's webhook a new signing secret.
type RotateWebhookSecretHandler struct {
	tx     Transactor
	read   FormReader
	ids    IDs
	clock  Clock
	sealer Sealer
}

// NewRotateWebhookSecretHandler builds the handler; every dependency is required.
func NewRotateWebhookSecretHandler(tx Transactor, read FormReader, ids IDs, clock Clock, sealer Sealer) *RotateWebhookSecretHandler {
	if tx == nil || read == nil || ids == nil || clock == nil || sealer == nil {
		panic("application: nil dependency of RotateWebhookSecretHandler")
	}
	return &RotateWebhookSecretHandler{tx: tx, read: read, ids: ids, clock: clock, sealer: sealer}
}

// Handle rotates the secret: the answer carries the new one, once; the old
// one keeps signing beside it for form.WebhookSecretOverlap.
func (h *RotateWebhookSecretHandler) Handle(ctx context.Context, cmd RotateWebhookSecret) (IntegrationRecord, error) {
	if err := cmd.Caller.Require(account.ScopeFormsWrite); err != nil {
		return IntegrationRecord{}, err
	}
	if _, err := ownedForm(ctx, h.read, cmd.Caller, cmd.FormID); err != nil {
		return IntegrationRecord{}, err
	}
	now := h.clock.Now()
	var out IntegrationRecord
	err := h.tx.InTx(ctx, metadataFor(cmd.Caller, cmd.RequestID), func(tx Tx) error {
		f, err := tx.LoadForm(ctx, cmd.FormID)
		if err != nil {
			return err
		}
		secret, err := issueWebhookSecret(ctx, tx, f, h.ids, h.sealer, now)
		if err != nil {
			return err
		}
		if err := tx.SaveForm(ctx, f); err != nil {
			return err
		}
		hook, _ := f.Integration(form.IntegrationWebhook)
		out = IntegrationRecord{Integration: hook.Masked(), Secret: secret}
		return nil
	})
	if err != nil {
		return IntegrationRecord{}, err
	}
	return out, nil
}
