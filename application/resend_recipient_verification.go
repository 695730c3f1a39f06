package application

import (
	"context"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/verification"
)

// ResendRecipientVerification is POST /v1/forms/{formId}/recipient-verifications.
type ResendRecipientVerification struct {
	Caller    Session
	RequestID string
	FormID    string
}

// ResendRecipientVerificationHandler queues a new verification email for a
// form's unverified recipient.
type ResendRecipientVerificationHandler struct {
	tx     Transactor
	read   RecipientVerificationReader
	ids    IDs
	clock  Clock
	tokens LinkTokens
}

// NewResendRecipientVerificationHandler builds the handler; every dependency is required.
func NewResendRecipientVerificationHandler(tx Transactor, read RecipientVerificationReader, ids IDs, clock Clock, tokens LinkTokens) *ResendRecipientVerificationHandler {
	if tx == nil || read == nil || ids == nil || clock == nil || tokens == nil {
		panic("application: nil dependency of ResendRecipientVerificationHandler")
	}
	return &ResendRecipientVerificationHandler{tx: tx, read: read, ids: ids, clock: clock, tokens: tokens}
}

// Handle requests a new verification unless the recipient is already
// verified, and returns the latest one.
func (h *ResendRecipientVerificationHandler) Handle(ctx context.Context, cmd ResendRecipientVerification) (VerificationRecord, error) {
	if err := cmd.Caller.Require(account.ScopeFormsWrite); err != nil {
		return VerificationRecord{}, err
	}
	rec, err := ownedForm(ctx, h.read, cmd.Caller, cmd.FormID)
	if err != nil {
		return VerificationRecord{}, err
	}
	if rec.RecipientVerified {
		return h.read.LatestVerification(ctx, verification.KindRecipient, cmd.FormID)
	}
	now := h.clock.Now()
	err = h.tx.InTx(ctx, metadataFor(cmd.Caller, cmd.RequestID), func(tx Tx) error {
		return requestRecipientVerification(ctx, tx, h.ids, h.tokens, cmd.FormID, rec.AccountID, rec.Settings.RecipientEmail, now)
	})
	if err != nil {
		return VerificationRecord{}, err
	}
	return h.read.LatestVerification(ctx, verification.KindRecipient, cmd.FormID)
}
