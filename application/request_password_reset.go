package application

import (
	"context"
	"errors"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/verification"
)

// RequestPasswordReset is POST /agent/auth/password-reset: mail a one-time
// password reset link to the address, if an account has it.
type RequestPasswordReset struct {
	Email     string
	RequestID string
}

// RequestPasswordResetHandler records a password reset verification for the
// account of an address; the verification mailer sends its link. Whoever can
// read that mailbox can so always take the account back, including one that
// someone else registered under the address with a password of their own.
type RequestPasswordResetHandler struct {
	tx     Transactor
	read   ReadModel
	ids    IDs
	clock  Clock
	tokens LinkTokens
}

// NewRequestPasswordResetHandler builds the handler; every dependency is required.
func NewRequestPasswordResetHandler(tx Transactor, read ReadModel, ids IDs, clock Clock, tokens LinkTokens) *RequestPasswordResetHandler {
	if tx == nil || read == nil || ids == nil || clock == nil || tokens == nil {
		panic("application: nil dependency of RequestPasswordResetHandler")
	}
	return &RequestPasswordResetHandler{tx: tx, read: read, ids: ids, clock: clock, tokens: tokens}
}

// Handle requests the reset. An address without an account is no error: the
// caller is told the same either way, so the answer does not reveal which
// addresses have accounts.
func (h *RequestPasswordResetHandler) Handle(ctx context.Context, cmd RequestPasswordReset) error {
	email := account.NormalizeEmail(cmd.Email)
	if !domain.IsEmailAddress(email) {
		return domain.Invalid("email", "email must be a valid email address")
	}
	rec, err := h.read.AccountByEmail(ctx, email)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	md := Metadata{Actor: Actor{Type: ActorAnonymous}, AccountID: rec.ID, RequestID: cmd.RequestID}
	return h.tx.InTx(ctx, md, func(tx Tx) error {
		return requestVerification(ctx, tx, h.ids, h.tokens, verification.KindPasswordReset, rec.ID, rec.ID, rec.Email, h.clock.Now())
	})
}
