package application

import (
	"time"

	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// Payload is the sealed content of an accepted submission: everything its
// deliveries need, captured when it was accepted.
type Payload struct {
	Fields         []submission.Field
	Recipient      string
	Subject        string
	FromName       string
	ReplyTo        string
	CC             []string
	SubmitterEmail string
	Webhook        string
	Autoresponder  *AutoresponderMail
	FormName       string
	// RequestID is the submission's request id, for the webhook body.
	RequestID string
	// Integrations maps the id of each delivery to an integration to its
	// type, so a 410 Gone disables the right one.
	Integrations map[string]form.IntegrationType
	// WebhookURLs maps each webhook delivery's id to its URL: a submission
	// may have a per-submit webhook and the form's webhook integration.
	// Sealed with the fields because a URL may carry a receiver's token;
	// payloads sealed before it existed use Webhook.
	WebhookURLs map[string]string
	// Destinations maps each Telegram and Google Sheets delivery's id to
	// where it goes, and each notification a routing rule sent to another
	// address than Recipient to that address.
	Destinations map[string]Destination
	// Attachments are the accepted files, content included: sealed with the
	// fields under the same data key, so shredding the payload once every
	// delivery is final shreds them too.
	Attachments []Attachment
	// Spam is the spam gate's verdict on a submission it tagged as spam
	// (the form's tag mode); nil for every other submission.
	Spam *SpamTag
	// Held is the spam gate's verdict on a submission it held for the
	// form's Spam folder (hold mode): shown to the owner reviewing it, never
	// delivered (a released submission goes out unmarked).
	Held *SpamTag
	// SpamLink says the form's spam gate was on when the submission was
	// accepted: its notification mail offers a link to mark it as spam.
	SpamLink bool
	// Templates are the form's own mail templates when it was accepted
	// (zero for a form without any, and in payloads sealed before them).
	Templates form.Templates
}

// SpamTag is the spam verdict a tagged submission's deliveries carry.
type SpamTag struct {
	Score   float64
	Reasons []string
}

// verdict is the tag as the domain's chat messages show it; nil when the
// submission was not tagged.
func (t *SpamTag) verdict() *submission.SpamVerdict {
	if t == nil {
		return nil
	}
	return &submission.SpamVerdict{Spam: true, Score: t.Score, Reasons: t.Reasons}
}

// Attachment is an accepted file of a submission: a multipart part with
// its content, or an object uploaded in advance, named by its upload key
// and delivered as a download link that works until LinksExpire.
type Attachment struct {
	Field       string
	Name        string
	Type        string
	Size        int64
	Content     []byte
	Key         string
	LinksExpire time.Time
}

// AutoresponderMail is the confirmation mail to the submitter.
type AutoresponderMail struct {
	Subject string
	Message string
	// FromName and ReplyTo are the form's own (payloads sealed before they
	// existed fall back to the default sender name and no Reply-To).
	FromName string
	ReplyTo  string
}

// Destination is where a Telegram or Google Sheets delivery goes, sealed
// with the payload like a webhook's URL.
type Destination struct {
	// Email is a routed notification's recipient.
	Email         string
	ChatID        string
	SpreadsheetID string
	SheetName     string
}
