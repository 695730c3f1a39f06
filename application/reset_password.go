package application

import (
	"context"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/verification"
)

// ResetPassword is the POST of a password reset link's page with the new
// password.
type ResetPassword struct {
	Token     string
	Password  string
	RequestID string
}

// PasswordChanged says whose password changed, for the page that answers.
type PasswordChanged struct {
	Email string
}

// ResetPasswordHandler completes a password reset link: the account gets the
// new password, its email counts as verified (the link proved the mailbox),
// and every session of the account ends, in one transaction, so whoever held
// the account before (its registrant, or a thief of the old password) is
// signed out with the change.
type ResetPasswordHandler struct {
	tx     Transactor
	read   VerificationReader
	hasher PasswordHasher
	clock  Clock
	tokens LinkTokens
}

// NewResetPasswordHandler builds the handler; every dependency is required.
func NewResetPasswordHandler(tx Transactor, read VerificationReader, hasher PasswordHasher, clock Clock, tokens LinkTokens) *ResetPasswordHandler {
	if tx == nil || read == nil || hasher == nil || clock == nil || tokens == nil {
		panic("application: nil dependency of ResetPasswordHandler")
	}
	return &ResetPasswordHandler{tx: tx, read: read, hasher: hasher, clock: clock, tokens: tokens}
}

// Handle sets the new password. A token that is not a password reset link's
// is domain.ErrNotFound; a used, superseded or expired link is refused with
// the verification's own error.
func (h *ResetPasswordHandler) Handle(ctx context.Context, cmd ResetPassword) (PasswordChanged, error) {
	rec, err := h.read.VerificationByTokenHash(ctx, HashSecret(cmd.Token))
	if err != nil {
		return PasswordChanged{}, err
	}
	// A link made by a key that was retired (it leaked, say) resets nothing.
	if rec.Kind != verification.KindPasswordReset || !h.tokens.Verify(rec.ID, cmd.Token) {
		return PasswordChanged{}, domain.ErrNotFound
	}
	if err := account.ValidatePassword(cmd.Password); err != nil {
		return PasswordChanged{}, err
	}
	now := h.clock.Now()
	// Refuse a link that is plainly spent before paying for Argon2id; the
	// verification decides again, authoritatively, in the transaction.
	if rec.Status == verification.StatusVerified {
		return PasswordChanged{}, verification.ErrAlreadyUsed
	}
	if !now.Before(rec.ExpiresAt) {
		return PasswordChanged{}, verification.ErrExpired
	}
	hash, err := h.hasher.Hash(cmd.Password)
	if err != nil {
		return PasswordChanged{}, err
	}
	md := Metadata{Actor: Actor{Type: ActorLink, ID: rec.ID}, AccountID: rec.SubjectID, RequestID: cmd.RequestID}
	err = h.tx.InTx(ctx, md, func(tx Tx) error {
		v, err := tx.LoadVerification(ctx, rec.ID)
		if err != nil {
			return err
		}
		a, err := tx.LoadAccount(ctx, v.SubjectID)
		if err != nil {
			return err
		}
		if err := v.CompleteReset(now, a.PasswordResetAt()); err != nil {
			return err
		}
		if err := a.ResetPassword(hash, now); err != nil {
			return err
		}
		if err := tx.SaveVerification(ctx, v); err != nil {
			return err
		}
		if err := tx.SaveAccount(ctx, a); err != nil {
			return err
		}
		return tx.EndSessions(ctx, a.ID())
	})
	if err != nil {
		return PasswordChanged{}, err
	}
	return PasswordChanged{Email: rec.Email}, nil
}
