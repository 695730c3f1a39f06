package application

import (
	"context"
	"errors"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/verification"
)

// VerifyLink confirms a verification link: the POST of the button on the
// page the link opens (GET changes nothing, see VerificationLinkHandler), so
// a mail scanner that fetches every link verifies nothing.
type VerifyLink struct {
	Token     string
	RequestID string
}

// LinkVerified says what the link verified, for the page that answers it.
type LinkVerified struct {
	Kind  verification.Kind
	Email string
}

// VerifyLinkHandler completes account and recipient verifications.
type VerifyLinkHandler struct {
	tx     Transactor
	read   VerificationReader
	clock  Clock
	tokens LinkTokens
}

// NewVerifyLinkHandler builds the handler.
func NewVerifyLinkHandler(tx Transactor, read VerificationReader, clock Clock, tokens LinkTokens) *VerifyLinkHandler {
	if tx == nil || read == nil || clock == nil || tokens == nil {
		panic("application: nil dependency of VerifyLinkHandler")
	}
	return &VerifyLinkHandler{tx: tx, read: read, clock: clock, tokens: tokens}
}

// Handle verifies the link's subject: the account email, or a form's recipient.
func (h *VerifyLinkHandler) Handle(ctx context.Context, cmd VerifyLink) (LinkVerified, error) {
	rec, err := h.read.VerificationByTokenHash(ctx, HashSecret(cmd.Token))
	if err != nil {
		return LinkVerified{}, err
	}
	// The stored hash finds the verification; the key check makes retiring
	// a key (dropping it from the old keys) end the links it issued, which
	// matters when it leaked.
	if !h.tokens.Verify(rec.ID, cmd.Token) {
		return LinkVerified{}, domain.ErrNotFound
	}
	latest, err := h.read.LatestVerification(ctx, rec.Kind, rec.SubjectID)
	if rec.Kind == verification.KindRouteRecipient {
		latest, err = h.read.LatestVerificationTo(ctx, rec.Kind, rec.SubjectID, rec.Email)
	}
	if err != nil {
		return LinkVerified{}, err
	}
	md := Metadata{Actor: Actor{Type: ActorLink, ID: rec.ID}, RequestID: cmd.RequestID}
	now := h.clock.Now()
	err = h.tx.InTx(ctx, md, func(tx Tx) error {
		v, err := tx.LoadVerification(ctx, rec.ID)
		if err != nil {
			return err
		}
		completeErr := v.Complete(now, latest.ID == v.VerificationID)
		if completeErr != nil && !errors.Is(completeErr, verification.ErrAlreadyUsed) {
			return completeErr
		}
		switch v.Kind {
		case verification.KindAccount:
			a, err := tx.LoadAccount(ctx, v.SubjectID)
			if err != nil {
				return err
			}
			if completeErr != nil { // a used link: harmless while the account stays verified
				return usedLink(completeErr, a.EmailVerified())
			}
			a.VerifyEmail(now)
			if err := tx.SaveVerification(ctx, v); err != nil {
				return err
			}
			return tx.SaveAccount(ctx, a)
		case verification.KindRecipient:
			f, err := tx.LoadForm(ctx, v.SubjectID)
			if err != nil {
				return err
			}
			if completeErr != nil { // a used link verifies nothing again
				return usedLink(completeErr, f.RecipientVerified() && f.Settings().RecipientEmail == v.Email)
			}
			if err := f.MarkRecipientVerified(v.Email, now); err != nil {
				return err
			}
			if err := tx.SaveVerification(ctx, v); err != nil {
				return err
			}
			return tx.SaveForm(ctx, f)
		case verification.KindRouteRecipient:
			f, err := tx.LoadForm(ctx, v.SubjectID)
			if err != nil {
				return err
			}
			if completeErr != nil { // a used link verifies nothing again
				return usedLink(completeErr, f.RouteRecipientVerified(v.Email))
			}
			if err := f.MarkRouteRecipientVerified(v.Email, now); err != nil {
				return err
			}
			if err := tx.SaveVerification(ctx, v); err != nil {
				return err
			}
			return tx.SaveForm(ctx, f)
		default:
			// A password reset link completes only with a new password
			// (ResetPasswordHandler); confirming it alone does nothing.
			return domain.ErrNotFound
		}
	})
	return LinkVerified{Kind: rec.Kind, Email: rec.Email}, err
}

// usedLink answers a link followed again: the same page as the first time
// while its subject is still verified for that address, else the refusal.
func usedLink(err error, stillVerified bool) error {
	if stillVerified {
		return nil
	}
	return err
}
