package application

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// Outbound makes the HTTP calls of integrations: webhooks and chat posts,
// Telegram messages and Google Sheets rows. One adapter makes them all, so
// every one dials through the same SSRF guard and its outcome means the
// same: nil is success, ErrPermanent no retry can help, ErrGone a target
// that is gone for good, anything else worth a retry.
type Outbound interface {
	WebhookSender
	// SendTelegram sends a Bot API sendMessage call with the operator's bot.
	SendTelegram(ctx context.Context, m TelegramMessage) error
	// AppendRow appends one row to a Google sheet as the operator's
	// service account.
	AppendRow(ctx context.Context, r SheetRow) error
}

// WebhookSender posts webhooks.
type WebhookSender interface {
	Send(ctx context.Context, w Webhook) error
}

// Webhook is one JSON POST.
type Webhook struct {
	ID   string
	URL  string
	Body []byte
	// Timestamp is the send time in unix seconds (webhook-timestamp), the
	// one the signature covers.
	Timestamp int64
	// Signature is the webhook-signature header; blank when the form has
	// no signing secret.
	Signature string
}

// Headers are the request headers a webhook (or chat message) is posted
// with: the Standard Webhooks ones and the content type. The sender sets
// exactly these, and the test inbox shows them.
func (w Webhook) Headers() []Header {
	out := []Header{{"Content-Type", "application/json"}, {"User-Agent", "formd-webhook/1"}, {"webhook-id", w.ID},
		{"webhook-timestamp", strconv.FormatInt(w.Timestamp, 10)}}
	if w.Signature != "" {
		out = append(out, Header{"webhook-signature", w.Signature})
	}
	return out
}

// Header is one HTTP request header.
type Header struct {
	Name, Value string
}

// TelegramMessage is one Bot API sendMessage call.
type TelegramMessage struct {
	// ID is the delivery's id, for the adapter's logs and errors.
	ID string
	// Body is the JSON sendMessage body, chat_id included.
	Body []byte
}

// SheetRow is one row to append to a Google sheet.
type SheetRow struct {
	ID            string
	SpreadsheetID string
	SheetName     string
	Values        []string
}

// ErrPermanent marks failures no retry can fix (the payload is gone, the
// receiver refused the request).
var ErrPermanent = errors.New("permanent failure")

// ErrGone is a webhook receiver answering 410 Gone: a permanent failure
// that also disables the form's webhook integration it was sent for.
var ErrGone = fmt.Errorf("%w: the receiver answered 410 Gone", ErrPermanent)
