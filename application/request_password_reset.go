package application

import (
	"context"
	"errors"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/verification"
)

// RequestPasswordReset is POST /agent/auth/password-reset (and the
// dashboard's forgotten-password page): mail a one-time password reset link
// to the address, if an account has it.
type RequestPasswordReset struct {
	Email     string
	RequestID string
	// Language is the catalog language of the request (its Accept-Language
	// matched by Messages.Language), for the words of the verification
	// mails it causes; blank is English.
	Language string
}

// RequestPasswordResetHandler records a password reset verification for the
// account of an address; the verification mailer sends its link. Whoever can
// read that mailbox can so always take the account back, including one that
// someone else registered under the address with a password of their own.
type RequestPasswordResetHandler struct {
	tx     Transactor
	read   AccountReader
	ids    IDs
	clock  Clock
	tokens LinkTokens
	later  Later
}

// NewRequestPasswordResetHandler builds the handler; every dependency is required.
func NewRequestPasswordResetHandler(tx Transactor, read AccountReader, ids IDs, clock Clock, tokens LinkTokens, later Later) *RequestPasswordResetHandler {
	if tx == nil || read == nil || ids == nil || clock == nil || tokens == nil || later == nil {
		panic("application: nil dependency of RequestPasswordResetHandler")
	}
	return &RequestPasswordResetHandler{tx: tx, read: read, ids: ids, clock: clock, tokens: tokens, later: later}
}

// Handle requests the reset. An address without an account is no error: the
// caller is told the same either way, so the answer does not reveal which
// addresses have accounts. Before it answers, Handle does the same work for
// every address: it counts the request against the address's limit
// (verification.MayRequestReset, in PostgreSQL), refused with a
// *domain.TooManyRequestsError alike for both. Only later, after the answer,
// does it look for an account and mail it a link, so neither the answer nor
// its timing tells the two apart, and a refused request never replaces the
// link its owner was sent.
func (h *RequestPasswordResetHandler) Handle(ctx context.Context, cmd RequestPasswordReset) error {
	email := account.NormalizeEmail(cmd.Email)
	if !domain.IsEmailAddress(email) {
		return domain.Invalid("email", "email must be a valid email address")
	}
	now := h.clock.Now()
	md := Metadata{Actor: Actor{Type: ActorAnonymous}, RequestID: cmd.RequestID}
	err := h.tx.InTx(ctx, md, func(tx Tx) error {
		earlier, err := tx.PasswordResetRequests(ctx, email, now.Add(-verification.ResetRequestLookback))
		if err != nil {
			return err
		}
		if err := verification.MayRequestReset(earlier, now); err != nil {
			return err
		}
		return tx.RecordPasswordResetRequest(ctx, email, now)
	})
	if err != nil {
		return err
	}
	h.later.Go("password reset mail", func(ctx context.Context) error { return h.mail(ctx, email, cmd.RequestID, cmd.Language) })
	return nil
}

// mail issues the reset link to the address's account, if it has one.
func (h *RequestPasswordResetHandler) mail(ctx context.Context, email, requestID, language string) error {
	rec, err := h.read.AccountByEmail(ctx, email)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	md := Metadata{Actor: Actor{Type: ActorAnonymous}, AccountID: rec.ID, RequestID: requestID}
	return h.tx.InTx(ctx, md, func(tx Tx) error {
		return requestVerification(ctx, tx, h.ids, h.tokens, verification.KindPasswordReset, rec.ID, rec.ID, rec.Email, language, h.clock.Now())
	})
}
