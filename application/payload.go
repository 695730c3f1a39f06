package application

import (
	"time"

	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// Payload is the sealed content of an accepted submission: everything its
// deliveries need, captured when it was accepted.
type Payload struct {
	Fields         []submission.Field `json:"fields"`
	Recipient      string             `json:"recipient"`
	Subject        string             `json:"subject"`
	FromName       string             `json:"fromName"`
	ReplyTo        string             `json:"replyTo,omitempty"`
	CC             []string           `json:"cc,omitempty"`
	SubmitterEmail string             `json:"submitterEmail,omitempty"`
	Webhook        string             `json:"webhook,omitempty"`
	Autoresponder  *AutoresponderMail `json:"autoresponder,omitempty"`
	FormName       string             `json:"formName"`
	// RequestID is the submission's request id, for the webhook body.
	RequestID string `json:"requestId,omitempty"`
	// Integrations maps the id of each delivery to an integration to its
	// type, so a 410 Gone disables the right one.
	Integrations map[string]form.IntegrationType `json:"integrations,omitempty"`
	// WebhookURLs maps each webhook delivery's id to its URL: a submission
	// may have a per-submit webhook and the form's webhook integration.
	// Sealed with the fields because a URL may carry a receiver's token;
	// payloads sealed before it existed use Webhook.
	WebhookURLs map[string]string `json:"webhookUrls,omitempty"`
	// Destinations maps each Telegram and Google Sheets delivery's id to
	// where it goes.
	Destinations map[string]Destination `json:"destinations,omitempty"`
	// Attachments are the accepted files, content included: sealed with the
	// fields under the same data key, so shredding the payload once every
	// delivery is final shreds them too.
	Attachments []Attachment `json:"attachments,omitempty"`
}

// Attachment is an accepted file of a submission: a multipart part with
// its content, or an object uploaded in advance, named by its upload key
// and delivered as a download link that works until LinksExpire.
type Attachment struct {
	Field       string    `json:"field"`
	Name        string    `json:"name"`
	Type        string    `json:"type"`
	Size        int64     `json:"size"`
	Content     []byte    `json:"content,omitempty"`
	Key         string    `json:"key,omitempty"`
	LinksExpire time.Time `json:"linksExpire,omitzero"`
}

// AutoresponderMail is the confirmation mail to the submitter.
type AutoresponderMail struct {
	Subject string `json:"subject"`
	Message string `json:"message"`
	// FromName and ReplyTo are the form's own (payloads sealed before they
	// existed fall back to the default sender name and no Reply-To).
	FromName string `json:"fromName,omitempty"`
	ReplyTo  string `json:"replyTo,omitempty"`
}

// Destination is where a Telegram or Google Sheets delivery goes, sealed
// with the payload like a webhook's URL.
type Destination struct {
	ChatID        string `json:"chatId,omitempty"`
	SpreadsheetID string `json:"spreadsheetId,omitempty"`
	SheetName     string `json:"sheetName,omitempty"`
}
