package application

import (
	"context"
	"errors"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
)

// RestoreFormVersion is POST /v1/forms/{formId}/restore.
type RestoreFormVersion struct {
	Caller    Session
	RequestID string
	// Language is the catalog language of the request (its Accept-Language
	// matched by Messages.Language), for the words of the verification
	// mails it causes; blank is English.
	Language string
	FormID   string
	Version  int
}

// RestoreFormVersionHandler makes an earlier version's settings the form's
// current ones.
type RestoreFormVersionHandler struct {
	tx     Transactor
	read   FormHistoryReader
	ent    Entitlements
	ids    IDs
	clock  Clock
	tokens LinkTokens
}

// NewRestoreFormVersionHandler builds the handler; every dependency is
// required.
func NewRestoreFormVersionHandler(tx Transactor, read FormHistoryReader, ent Entitlements, ids IDs, clock Clock, tokens LinkTokens) *RestoreFormVersionHandler {
	if tx == nil || read == nil || ent == nil || ids == nil || clock == nil || tokens == nil {
		panic("application: nil dependency of RestoreFormVersionHandler")
	}
	return &RestoreFormVersionHandler{tx: tx, read: read, ent: ent, ids: ids, clock: clock, tokens: tokens}
}

// Handle restores the caller's form's settings of cmd.Version as a new
// event (form.SettingsRestored), checked against the current plan as a
// PATCH is. Integrations and secrets stay as they are. A restored recipient
// email other than the current one is verified again, as after a PATCH.
func (h *RestoreFormVersionHandler) Handle(ctx context.Context, cmd RestoreFormVersion) (FormRecord, error) {
	// Read outside the transaction: a stream's first n events never change.
	history, err := ownedFormHistory(ctx, h.read, cmd.Caller, account.ScopeFormsWrite, cmd.FormID)
	if err != nil {
		return FormRecord{}, err
	}
	policy, err := formPolicy(ctx, h.ent, cmd.Caller.AccountID)
	if err != nil {
		return FormRecord{}, err
	}
	past, err := formAtVersion(history, cmd.Version)
	if err != nil {
		return FormRecord{}, invalidVersion(err)
	}
	now := h.clock.Now()
	err = h.tx.InTx(ctx, metadataFor(cmd.Caller, cmd.RequestID), func(tx Tx) error {
		f, err := tx.LoadForm(ctx, cmd.FormID)
		if err != nil {
			return err
		}
		before := f.Settings()
		if err := f.RestoreSettings(past, policy, now); err != nil {
			return err
		}
		if err := tx.SaveForm(ctx, f); err != nil {
			return err
		}
		return reverifyChangedRecipient(ctx, tx, h.ids, h.tokens, f, before, cmd.Language, now)
	})
	if err != nil {
		return FormRecord{}, err
	}
	return h.read.FormByID(ctx, cmd.FormID)
}

// invalidVersion is a version the form has not reached, named as the
// request's field: the form exists, the body is wrong.
func invalidVersion(err error) error {
	if errors.Is(err, domain.ErrNotFound) {
		return domain.Invalid("version", "version must be one of the form's versions, from 1 to its current version")
	}
	return err
}
