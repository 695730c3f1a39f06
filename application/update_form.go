package application

import (
	"context"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
)

// UpdateForm is PATCH /v1/forms/{formId}.
type UpdateForm struct {
	Caller    Session
	RequestID string
	// Language is the catalog language of the request (its Accept-Language
	// matched by Messages.Language), for the words of the verification
	// mails it causes; blank is English.
	Language string
	FormID   string
	Patch    form.Patch
}

// UpdateFormHandler changes a form's settings.
type UpdateFormHandler struct {
	tx     Transactor
	read   FormReader
	ent    Entitlements
	ids    IDs
	clock  Clock
	tokens LinkTokens
	sealer Sealer
}

// NewUpdateFormHandler builds the handler; every dependency is required.
func NewUpdateFormHandler(tx Transactor, read FormReader, ent Entitlements, ids IDs, clock Clock, tokens LinkTokens, sealer Sealer) *UpdateFormHandler {
	if tx == nil || read == nil || ent == nil || ids == nil || clock == nil || tokens == nil || sealer == nil {
		panic("application: nil dependency of UpdateFormHandler")
	}
	return &UpdateFormHandler{tx: tx, read: read, ent: ent, ids: ids, clock: clock, tokens: tokens, sealer: sealer}
}

// Handle changes the caller's form; a new recipient gets a new verification
// email unless the throttle on verification mails refuses it (the change is
// saved either way, the recipient pending), and a captcha secret is stored sealed, never in an event.
func (h *UpdateFormHandler) Handle(ctx context.Context, cmd UpdateForm) (FormRecord, error) {
	if err := cmd.Caller.Require(account.ScopeFormsWrite); err != nil {
		return FormRecord{}, err
	}
	if _, err := ownedForm(ctx, h.read, cmd.Caller, cmd.FormID); err != nil {
		return FormRecord{}, err
	}
	policy, err := formPolicy(ctx, h.ent, cmd.Caller.AccountID)
	if err != nil {
		return FormRecord{}, err
	}
	now := h.clock.Now()
	patch := withCaptchaSecretID(cmd.Patch, h.ids)
	err = h.tx.InTx(ctx, metadataFor(cmd.Caller, cmd.RequestID), func(tx Tx) error {
		f, err := tx.LoadForm(ctx, cmd.FormID)
		if err != nil {
			return err
		}
		before := f.Settings()
		if err := f.ChangeSettings(patch, policy, now); err != nil {
			return err
		}
		if err := tx.SaveForm(ctx, f); err != nil {
			return err
		}
		after := f.Settings()
		if err := storeCaptchaSecret(ctx, tx, h.sealer, patch, before.Captcha, after.Captcha, f.ID(), now); err != nil {
			return err
		}
		return reverifyChangedRecipient(ctx, tx, h.ids, h.tokens, f, before, cmd.Language, now)
	})
	if err != nil {
		return FormRecord{}, err
	}
	return h.read.FormByID(ctx, cmd.FormID)
}
