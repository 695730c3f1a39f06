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
	return h.mailer.Send(ctx, verificationMail(v, q.DeliveryID, token, h.settings, h.messages))
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

// verificationMailIDs are the catalog ids (docs/languages.md) of each kind's
// mail; .subject and .text follow.
var verificationMailIDs = map[verification.Kind]string{
	verification.KindAccount:        "mail.account_verification",
	verification.KindRecipient:      "mail.recipient_verification",
	verification.KindRouteRecipient: "mail.route_recipient_verification",
	verification.KindPasswordReset:  "mail.password_reset",
}

// verificationMail is the mail with the one-time link of v, in v's
// language (English when it has none).
func verificationMail(v VerificationRecord, deliveryID, token string, settings MailSettings, messages Messages) Mail {
	id, ok := verificationMailIDs[v.Kind]
	if !ok {
		id = verificationMailIDs[verification.KindRecipient]
	}
	language := messages.Language(v.Language)
	data := map[string]any{"Email": v.Email, "Link": verificationLink(settings, token), "Expires": linkExpiry(v)}
	return Mail{
		DeliveryID: deliveryID,
		MessageID:  deliveryID + "@formd",
		From:       settings.From,
		FromName:   systemFromName(settings.From),
		To:         v.Email,
		Subject:    messages.Text(language, id+".subject", nil),
		Text:       messages.Text(language, id+".text", data) + "\n",
	}
}

// verificationLink is the address of a verification link's page.
func verificationLink(settings MailSettings, token string) string {
	return strings.TrimRight(settings.BaseURL, "/") + "/verify/" + token
}

// linkExpiry is when v's link expires, as its mail says it.
func linkExpiry(v VerificationRecord) string { return v.ExpiresAt.UTC().Format("2006-01-02 15:04 MST") }
