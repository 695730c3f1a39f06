package application

import (
	"context"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
)

// ConfigureIntegration is PATCH /v1/forms/{formId}/integrations/{type}.
type ConfigureIntegration struct {
	Caller    Session
	RequestID string
	FormID    string
	Type      form.IntegrationType
	Patch     form.IntegrationPatch
}

// ConfigureIntegrationHandler creates or changes one integration of a form.
type ConfigureIntegrationHandler struct {
	tx     Transactor
	read   ReadModel
	ids    IDs
	clock  Clock
	sealer Sealer
	// services says which types this server can send to.
	services IntegrationServices
}

// NewConfigureIntegrationHandler builds the handler; every dependency is required.
func NewConfigureIntegrationHandler(tx Transactor, read ReadModel, ids IDs, clock Clock, sealer Sealer,
	services IntegrationServices) *ConfigureIntegrationHandler {
	if tx == nil || read == nil || ids == nil || clock == nil || sealer == nil || services == nil {
		panic("application: nil dependency of ConfigureIntegrationHandler")
	}
	return &ConfigureIntegrationHandler{tx: tx, read: read, ids: ids, clock: clock, sealer: sealer, services: services}
}

// unconfigured is the error for a type this server has no configuration
// to send to: the owner cannot fix it, so it says who can.
func unconfigured(t form.IntegrationType) error {
	setting := map[form.IntegrationType]string{
		form.IntegrationTelegram:     "FORMD_TELEGRAM_BOT_TOKEN",
		form.IntegrationGoogleSheets: "FORMD_GOOGLE_CREDENTIALS_FILE",
	}[t]
	return domain.Invalid("type", "%s integrations are not available on this server: its operator has not set %s", t, setting)
}

// Handle configures the caller's form's integration. A webhook gets its
// signing secret the first time it is configured, and only that answer
// carries the secret. The answer's target URL is masked, as every view
// shows it once saved.
func (h *ConfigureIntegrationHandler) Handle(ctx context.Context, cmd ConfigureIntegration) (IntegrationRecord, error) {
	if err := cmd.Caller.Require(account.ScopeFormsWrite); err != nil {
		return IntegrationRecord{}, err
	}
	if _, err := ownedForm(ctx, h.read, cmd.Caller, cmd.FormID); err != nil {
		return IntegrationRecord{}, err
	}
	now := h.clock.Now()
	var out IntegrationRecord
	err := h.tx.InTx(ctx, metadataFor(cmd.Caller, cmd.RequestID), func(tx Tx) error {
		out = IntegrationRecord{} // a retried transaction starts afresh
		f, err := tx.LoadForm(ctx, cmd.FormID)
		if err != nil {
			return err
		}
		if err := f.ConfigureIntegration(cmd.Type, cmd.Patch, now); err != nil {
			return err
		}
		// Turning one off is always allowed, so an owner can silence an
		// integration the server can no longer send.
		if in, _ := f.Integration(cmd.Type); in.Enabled && !h.services.Configured(cmd.Type) {
			return unconfigured(cmd.Type)
		}
		if f.NeedsWebhookSecret() {
			if out.Secret, err = issueWebhookSecret(ctx, tx, f, h.ids, h.sealer, now); err != nil {
				return err
			}
		}
		if err := tx.SaveForm(ctx, f); err != nil {
			return err
		}
		in, _ := f.Integration(cmd.Type)
		out.Integration = in.Masked()
		return nil
	})
	if err != nil {
		return IntegrationRecord{}, err
	}
	return out, nil
}
