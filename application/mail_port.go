package application

import "context"

// Mailer sends email (SMTP, or a spool folder in development).
type Mailer interface {
	Send(ctx context.Context, m Mail) error
}

// Mail is one outgoing email.
type Mail struct {
	DeliveryID string
	MessageID  string
	From       string
	FromName   string
	To         string
	Cc         []string
	ReplyTo    string
	Subject    string
	Text       string
	// HTML is an optional HTML body, sent with Text as
	// multipart/alternative.
	HTML string
	// Attachments are files attached to the mail (a submission's uploads).
	Attachments []MailAttachment
}

// MailAttachment is one file attached to a mail.
type MailAttachment struct {
	Name    string
	Type    string
	Content []byte
}

// MailSettings are the sender and public address used in outgoing mail.
type MailSettings struct {
	BaseURL string
	From    string
}
