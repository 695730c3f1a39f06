package application

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	netmail "net/mail"
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
	token, err := requestedToken(h.tokens, v)
	if err != nil {
		return err
	}
	m := verificationMail(v, q.DeliveryID, token, h.settings)
	if v.Kind == verification.KindRecipient && v.Language != "" && h.messages != nil {
		data := map[string]any{"Email": v.Email, "Link": verificationLink(h.settings, token), "Expires": linkExpiry(v)}
		m.Subject = h.messages.Text(v.Language, "mail.recipient_verification.subject", nil)
		m.Text = h.messages.Text(v.Language, "mail.recipient_verification.text", data) + "\n"
	}
	return h.mailer.Send(ctx, m)
}

// requestedToken is the token the verification was requested with: the one
// whose hash the record holds. After a key rotation between the request and
// this mail, that is the old key's token, not the current key's.
func requestedToken(tokens LinkTokens, v VerificationRecord) (string, error) {
	for _, t := range tokens.Tokens(v.ID) {
		if bytes.Equal(HashSecret(t), v.TokenHash) {
			return t, nil
		}
	}
	return "", fmt.Errorf("%w: verification %s was requested under a secret key formd no longer accepts, so its link cannot work: ask for a new link",
		ErrPermanent, v.ID)
}

// systemFromName is the display name of formd's own mails: none when the
// operator's FORMD_MAIL_FROM has one ("Acme Forms <forms@acme.example>"),
// so the mailer keeps it, else "formd".
func systemFromName(from string) string {
	if a, err := netmail.ParseAddress(from); err == nil && a.Name != "" {
		return ""
	}
	return "formd"
}

// verificationMail is the mail with the one-time link of v.
func verificationMail(v VerificationRecord, deliveryID, token string, settings MailSettings) Mail {
	link, expires := verificationLink(settings, token), linkExpiry(v)
	m := Mail{
		DeliveryID: deliveryID,
		MessageID:  deliveryID + "@formd",
		From:       settings.From,
		FromName:   systemFromName(settings.From),
		To:         v.Email,
	}
	switch v.Kind {
	case verification.KindPasswordReset:
		m.Subject, m.Text = passwordResetMail(link, v.ExpiresAt)
	case verification.KindAccount:
		m.Subject = "Verify your formd account email"
		m.Text = fmt.Sprintf("Welcome to formd.\n\nFollow this link to verify your account email and start creating forms:\n\n%s\n\nThe link expires at %s.\nIf you did not register, ignore this email.\n",
			link, expires)
	case verification.KindRouteRecipient:
		m.Subject = "Confirm you want to receive form submissions"
		m.Text = fmt.Sprintf("A formd form's routing rules send some of its submissions to %s.\n\nFollow this link to confirm and start receiving them:\n\n%s\n\nThe link expires at %s.\nIf you did not expect this, ignore this email and no submissions will be sent to you.\n",
			v.Email, link, expires)
	default:
		m.Subject = "Confirm you want to receive form submissions"
		m.Text = fmt.Sprintf("A formd form names %s as the recipient of its submissions.\n\nFollow this link to confirm and start receiving them:\n\n%s\n\nThe link expires at %s.\nIf you did not expect this, ignore this email and no submissions will be sent to you.\n",
			v.Email, link, expires)
	}
	return m
}

// verificationLink is the address of a verification link's page.
func verificationLink(settings MailSettings, token string) string {
	return strings.TrimRight(settings.BaseURL, "/") + "/verify/" + token
}

// linkExpiry is when v's link expires, as its mail says it.
func linkExpiry(v VerificationRecord) string { return v.ExpiresAt.UTC().Format("2006-01-02 15:04 MST") }
