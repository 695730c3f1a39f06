package application

import (
	"context"
	"errors"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/verification"
)

// RecipientVerification is GET /v1/forms/{formId}/recipient-verification.
type RecipientVerification struct {
	Caller Session
	FormID string
}

// RecipientVerificationReader is what reading and resending a form's
// recipient verification read: the form, to check the caller owns it, and
// its latest verification.
type RecipientVerificationReader interface {
	FormReader
	VerificationReader
}

// RecipientVerificationHandler tells whether a form's recipient is verified.
type RecipientVerificationHandler struct {
	read RecipientVerificationReader
}

// NewRecipientVerificationHandler builds the handler; every dependency is required.
func NewRecipientVerificationHandler(read RecipientVerificationReader) *RecipientVerificationHandler {
	if read == nil {
		panic("application: nil dependency of RecipientVerificationHandler")
	}
	return &RecipientVerificationHandler{read: read}
}

// Handle returns the latest verification of the caller's form, its status
// taken from the form itself (the form is what submissions check).
func (h *RecipientVerificationHandler) Handle(ctx context.Context, q RecipientVerification) (VerificationRecord, error) {
	if err := q.Caller.Require(account.ScopeFormsRead); err != nil {
		return VerificationRecord{}, err
	}
	rec, err := ownedForm(ctx, h.read, q.Caller, q.FormID)
	if err != nil {
		return VerificationRecord{}, err
	}
	v, err := h.read.LatestVerification(ctx, verification.KindRecipient, q.FormID)
	// No mail was sent to the form's current recipient when the throttle on
	// verification mails refused it: the record then names the address, and
	// no delivery.
	if errors.Is(err, domain.ErrNotFound) || (err == nil && v.Email != rec.Settings.RecipientEmail) {
		v, err = VerificationRecord{SubjectID: q.FormID, Email: rec.Settings.RecipientEmail}, nil
	}
	if rec.RecipientVerified {
		v.Status = verification.StatusVerified
	} else {
		v.Status = verification.StatusPending
	}
	return v, err
}
