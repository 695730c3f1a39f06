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
	link := strings.TrimRight(h.settings.BaseURL, "/") + "/verify/" + h.tokens.Token(e.VerificationID)
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
