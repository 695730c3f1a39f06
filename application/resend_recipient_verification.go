package application

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// ResendRecipientVerification is POST /v1/forms/{formId}/recipient-verifications.
type ResendRecipientVerification struct {
	Caller    Session
	RequestID string
	// Language is the catalog language of the request (its Accept-Language
	// matched by Messages.Language), for the words of the verification
	// mails it causes; blank is English.
	Language string
	FormID   string
	// RecipientEmail names a routing recipient to resend for; blank (or
	// the primary's address) resends the primary recipient's.
	RecipientEmail string
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
	if cmd.RecipientEmail != "" && !strings.EqualFold(cmd.RecipientEmail, rec.Settings.RecipientEmail) {
		return h.resendRoute(ctx, cmd, rec)
	}
	if rec.RecipientVerified {
		return h.read.LatestVerification(ctx, verification.KindRecipient, cmd.FormID)
	}
	now := h.clock.Now()
	err = h.tx.InTx(ctx, metadataFor(cmd.Caller, cmd.RequestID), func(tx Tx) error {
		return requestRecipientVerification(ctx, tx, h.ids, h.tokens, cmd.FormID, rec.AccountID, rec.Settings.RecipientEmail, cmd.Language, now)
	})
	if err != nil {
		return VerificationRecord{}, err
	}
	return h.read.LatestVerification(ctx, verification.KindRecipient, cmd.FormID)
}

// resendRoute requests a new link for one of the form's routing recipients
// unless it is verified, and returns its latest verification with its
// status taken from the form.
func (h *ResendRecipientVerificationHandler) resendRoute(ctx context.Context, cmd ResendRecipientVerification, rec FormRecord) (VerificationRecord, error) {
	addresses := form.RouteAddresses(rec.Settings.Routes)
	i := slices.IndexFunc(addresses, func(a string) bool { return strings.EqualFold(a, cmd.RecipientEmail) })
	if i < 0 {
		return VerificationRecord{}, domain.Invalid("recipientEmail", "recipientEmail is neither the form's recipient nor one of its routing recipients")
	}
	email := addresses[i]
	verified := form.RouteVerified(rec.Settings, rec.RecipientVerified, rec.VerifiedRoutes, email)
	if !verified {
		err := h.tx.InTx(ctx, metadataFor(cmd.Caller, cmd.RequestID), func(tx Tx) error {
			return requestRouteVerification(ctx, tx, h.ids, h.tokens, cmd.FormID, rec.AccountID, email, cmd.Language, h.clock.Now())
		})
		if err != nil {
			return VerificationRecord{}, err
		}
	}
	v, err := h.read.LatestVerificationTo(ctx, verification.KindRouteRecipient, cmd.FormID, email)
	if errors.Is(err, domain.ErrNotFound) {
		v, err = VerificationRecord{SubjectID: cmd.FormID, Email: email}, nil
	}
	v.Status = verification.StatusPending
	if verified {
		v.Status = verification.StatusVerified
	}
	return v, err
}
