package application

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/verification"
)

// sendVerification sends the mail of a verification delivery. Nothing of it
// is stored with the delivery: the address and expiry come from the
// verification record, and the link's token is derived again from the
// verification id, as it was when the request stored its hash.
func (h *DeliverHandler) sendVerification(ctx context.Context, q delivery.Queued) error {
	if q.VerificationID == "" {
		return fmt.Errorf("%w: the delivery names no verification", ErrPermanent)
	}
	v, err := h.verifications.VerificationByID(ctx, q.VerificationID)
	if errors.Is(err, domain.ErrNotFound) {
		return fmt.Errorf("%w: verification %q not found", ErrPermanent, q.VerificationID)
	}
	if err != nil {
		return err
	}
	if !h.clock.Now().Before(v.ExpiresAt) {
		return fmt.Errorf("%w: the link expired before it could be mailed", ErrPermanent)
	}
	return h.mailer.Send(ctx, verificationMail(v, q.DeliveryID, h.tokens.Token(v.ID), h.settings))
}

// verificationMail is the mail with the one-time link of v.
func verificationMail(v VerificationRecord, deliveryID, token string, settings MailSettings) Mail {
	link := strings.TrimRight(settings.BaseURL, "/") + "/verify/" + token
	expires := v.ExpiresAt.UTC().Format("2006-01-02 15:04 MST")
	m := Mail{
		DeliveryID: deliveryID,
		MessageID:  deliveryID + "@formd",
		From:       settings.From,
		FromName:   "formd",
		To:         v.Email,
	}
	switch v.Kind {
	case verification.KindAccount:
		m.Subject = "Verify your formd account email"
		m.Text = fmt.Sprintf("Welcome to formd.\n\nFollow this link to verify your account email and start creating forms:\n\n%s\n\nThe link expires at %s.\nIf you did not register, ignore this email.\n",
			link, expires)
	default:
		m.Subject = "Confirm you want to receive form submissions"
		m.Text = fmt.Sprintf("A formd form names %s as the recipient of its submissions.\n\nFollow this link to confirm and start receiving them:\n\n%s\n\nThe link expires at %s.\nIf you did not expect this, ignore this email and no submissions will be sent to you.\n",
			v.Email, link, expires)
	}
	return m
}
