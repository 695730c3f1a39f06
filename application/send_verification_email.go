package application

import (
	"context"
	"fmt"
	"strings"

	"github.com/formd/formd/domain/verification"
)

// SendVerificationEmailHandler sends the email of a requested verification;
// it runs when the verification.requested event arrives through Watermill.
type SendVerificationEmailHandler struct {
	mailer   Mailer
	tokens   LinkTokens
	settings MailSettings
}

// NewSendVerificationEmailHandler builds the handler.
func NewSendVerificationEmailHandler(mailer Mailer, tokens LinkTokens, settings MailSettings) *SendVerificationEmailHandler {
	if mailer == nil || tokens == nil {
		panic("application: nil dependency of SendVerificationEmailHandler")
	}
	return &SendVerificationEmailHandler{mailer: mailer, tokens: tokens, settings: settings}
}

// Handle sends the mail with the one-time link.
func (h *SendVerificationEmailHandler) Handle(ctx context.Context, e verification.Requested) error {
	token, err := requestedToken(h.tokens, e)
	if err != nil {
		return err
	}
	link := strings.TrimRight(h.settings.BaseURL, "/") + "/verify/" + token
	m := Mail{
		DeliveryID: e.DeliveryID,
		MessageID:  e.DeliveryID + "@formd",
		From:       h.settings.From,
		FromName:   "formd",
		To:         e.Email,
	}
	switch e.Kind {
	case verification.KindAccount:
		m.Subject = "Verify your formd account email"
		m.Text = fmt.Sprintf("Welcome to formd.\n\nFollow this link to verify your account email and start creating forms:\n\n%s\n\nThe link expires at %s.\nIf you did not register, ignore this email.\n",
			link, e.ExpiresAt.UTC().Format("2006-01-02 15:04 MST"))
	case verification.KindPasswordReset:
		m.Subject, m.Text = passwordResetMail(link, e.ExpiresAt)
	default:
		m.Subject = "Confirm you want to receive form submissions"
		m.Text = fmt.Sprintf("A formd form names %s as the recipient of its submissions.\n\nFollow this link to confirm and start receiving them:\n\n%s\n\nThe link expires at %s.\nIf you did not expect this, ignore this email and no submissions will be sent to you.\n",
			e.Email, link, e.ExpiresAt.UTC().Format("2006-01-02 15:04 MST"))
	}
	return h.mailer.Send(ctx, m)
}

// requestedToken is the token the verification was requested with: the one
// whose hash the event holds. After a key rotation between the request and
// this mail, that is the old key's token, not the current key's.
func requestedToken(tokens LinkTokens, e verification.Requested) (string, error) {
	for _, t := range tokens.Tokens(e.VerificationID) {
		if hexHash(t) == e.TokenHash {
			return t, nil
		}
	}
	return "", fmt.Errorf("%w: verification %s was requested under a secret key formd no longer accepts, so its link cannot work: ask for a new link",
		ErrPermanent, e.VerificationID)
}
