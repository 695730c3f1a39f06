package application

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/formd/formd/domain/chat"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// WebhookSubmissionAccepted is the type of the webhook body sent for an
// accepted submission.
const WebhookSubmissionAccepted = "submission.accepted"

// webhookAttachment describes one file of a submission to a webhook: a
// file uploaded in advance comes with a temporary download link.
type webhookAttachment struct {
	Field string `json:"field"`
	Name  string `json:"name"`
	Size  int64  `json:"size"`
	Type  string `json:"type"`
	URL   string `json:"url,omitempty"`
}

func describeAttachments(in []Attachment, links map[string]string) []webhookAttachment {
	out := make([]webhookAttachment, 0, len(in))
	for _, a := range in {
		out = append(out, webhookAttachment{Field: a.Field, Name: a.Name, Size: a.Size, Type: a.Type, URL: links[a.Key]})
	}
	return out
}

// Renderer builds what a delivery sends from a submission's payload: the
// mail, the webhook or chat request (signed with the form's current
// secrets), the Telegram message or the sheet row. The delivery workers send
// what it builds; a test submission keeps it in the test inbox instead, so
// both show exactly the same thing.
type Renderer struct {
	settings  MailSettings
	secrets   WebhookSecrets
	sealer    Sealer
	links     ObjectLinks
	spam      SpamLinkTokens
	clock     Clock
	templates TemplateEngine
}

// NewRenderer builds a renderer; every dependency is required.
func NewRenderer(settings MailSettings, secrets WebhookSecrets, sealer Sealer, links ObjectLinks, spam SpamLinkTokens, clock Clock,
	templates TemplateEngine) *Renderer {
	if secrets == nil || sealer == nil || links == nil || spam == nil || clock == nil || templates == nil {
		panic("application: nil dependency of Renderer")
	}
	return &Renderer{settings: settings, secrets: secrets, sealer: sealer, links: links, spam: spam, clock: clock, templates: templates}
}

// Outgoing is one delivery's message, built: exactly one field is set.
type Outgoing struct {
	Mail     *Mail
	Webhook  *Webhook // a webhook, or a Slack or Discord message
	Telegram *TelegramMessage
	Row      *SheetRow
}

// downloadLinks makes the download link of each file uploaded in advance,
// by key; every link of a submission expires at the time its acceptance
// fixed, so the cleanup sweep knows when its object may go.
func (r *Renderer) downloadLinks(ctx context.Context, in []Attachment) (map[string]string, error) {
	var links map[string]string
	for _, a := range in {
		if a.Key == "" {
			continue
		}
		url, err := r.links.DownloadURL(ctx, ObjectDownload{Key: a.Key, Name: safeObjectName(a.Name), Expires: a.LinksExpire})
		if err != nil {
			return nil, fmt.Errorf("making the download link of upload %s: %w", a.Key, err)
		}
		if links == nil {
			links = map[string]string{}
		}
		links[a.Key] = url
	}
	return links, nil
}

// withAttachmentLines adds one line per file (name, size, type) to the
// fields a chat message or sheet row shows; never the content.
func withAttachmentLines(fields []submission.Field, in []Attachment) []submission.Field {
	if len(in) == 0 {
		return fields
	}
	out := append([]submission.Field(nil), fields...)
	for _, a := range in {
		out = append(out, submission.Field{Name: a.Field, Value: fmt.Sprintf("%s (%s, %d bytes)", a.Name, a.Type, a.Size)})
	}
	return out
}

// webhookBody is what a webhook receives (docs/integrations.md "Webhook payload", the
// WebhookPayload schema of openapi.json): the forwarded custom fields only,
// never routing fields, captcha tokens, the honeypot, access keys or
// attachment content, with the ids and the time of the submission.
type webhookBody struct {
	Type         string            `json:"type"`
	DeliveryID   string            `json:"deliveryId"`
	SubmissionID string            `json:"submissionId"`
	FormID       string            `json:"formId"`
	RequestID    string            `json:"requestId"`
	SubmittedAt  string            `json:"submittedAt"`
	Data         map[string]string `json:"data"`
	// Attachments describe the submission's files (name, size, type); their
	// content goes only to the notification email.
	Attachments []webhookAttachment `json:"attachments"`
	// Test marks the sample an integration's test sends (no submission)
	// and a test submission's rendering in the test inbox (never sent).
	Test bool `json:"test,omitempty"`
	// Spam is present when the form's spam gate tagged the submission.
	Spam *webhookSpam `json:"spam,omitempty"`
}

// webhookSpam is the spam verdict of a tagged submission, as a webhook
// receives it.
type webhookSpam struct {
	Verdict string   `json:"verdict"`
	Score   float64  `json:"score"`
	Reasons []string `json:"reasons"`
}

// webhookSpamOf is the webhook's spam object of a payload; nil when the
// submission was not tagged.
func webhookSpamOf(t *SpamTag) *webhookSpam {
	if t == nil {
		return nil
	}
	return &webhookSpam{Verdict: "spam", Score: t.Score, Reasons: append([]string{}, t.Reasons...)}
}

func (h *DeliverHandler) send(ctx context.Context, q delivery.Queued, sealed SealedPayload, opened *Payload) error {
	p, err := h.open(q, sealed, opened)
	if err != nil {
		return err
	}
	out, err := h.render.Render(ctx, q, p)
	if err != nil {
		return err
	}
	switch {
	case out.Mail != nil:
		return h.mailer.Send(ctx, *out.Mail)
	case out.Telegram != nil:
		return h.outbound.SendTelegram(ctx, *out.Telegram)
	case out.Row != nil:
		return h.outbound.AppendRow(ctx, *out.Row)
	case q.Kind == delivery.KindWebhook:
		return h.disableGoneWebhook(ctx, q, p, out.Webhook.URL, h.outbound.Send(ctx, *out.Webhook))
	default:
		// A 410 from a deleted chat hook is final (ErrGone is permanent)
		// but, unlike the webhook integration's, disables nothing.
		return h.outbound.Send(ctx, *out.Webhook)
	}
}

// open is the payload of a delivery: the one its submission's commit
// handed over in memory, else the sealed one opened and decoded.
func (h *DeliverHandler) open(q delivery.Queued, sealed SealedPayload, opened *Payload) (Payload, error) {
	if opened != nil {
		return *opened, nil
	}
	plain, err := h.sealer.Open(q.SubmissionID, sealed)
	if err != nil {
		return Payload{}, fmt.Errorf("%w: %v", ErrUnsealable, err)
	}
	p, err := decodePayload(plain)
	if errors.Is(err, ErrUnsealable) {
		return Payload{}, err
	}
	if err != nil {
		return Payload{}, fmt.Errorf("%w: decode payload: %v", ErrPermanent, err)
	}
	return p, nil
}

// Render builds the message of one delivery of a submission from its
// payload.
func (r *Renderer) Render(ctx context.Context, q delivery.Queued, p Payload) (Outgoing, error) {
	return r.render(ctx, q, p, false)
}

// RenderTest builds what a delivery of a test submission would send, for
// the test inbox: a webhook body says "test": true, and its signature is
// redacted. The form's signing secrets are never opened for it, so a
// credential that may only send test submissions cannot obtain a signed
// webhook for a submission that never happened.
func (r *Renderer) RenderTest(ctx context.Context, q delivery.Queued, p Payload) (Outgoing, error) {
	return r.render(ctx, q, p, true)
}

func (r *Renderer) render(ctx context.Context, q delivery.Queued, p Payload, test bool) (Outgoing, error) {
	var links map[string]string
	var err error
	if q.Kind == delivery.KindWebhook || q.Kind == delivery.KindEmail {
		if links, err = r.downloadLinks(ctx, p.Attachments); err != nil {
			return Outgoing{}, err
		}
	}
	if q.Kind == delivery.KindWebhook {
		url := cmp.Or(p.WebhookURLs[q.DeliveryID], p.Webhook)
		if url == "" {
			return Outgoing{}, fmt.Errorf("%w: no webhook URL in payload", ErrPermanent)
		}
		body, err := json.Marshal(webhookBody{Type: WebhookSubmissionAccepted, DeliveryID: q.DeliveryID, SubmissionID: q.SubmissionID,
			FormID: q.FormID, RequestID: p.RequestID, SubmittedAt: q.At.UTC().Format(time.RFC3339), Data: echo(p.Fields),
			Attachments: describeAttachments(p.Attachments, links), Test: test, Spam: webhookSpamOf(p.Spam)})
		if err != nil {
			return Outgoing{}, err
		}
		if test {
			w, err := r.unsignedWebhook(ctx, q, url, body)
			return Outgoing{Webhook: &w}, err
		}
		w, err := r.webhook(ctx, q, url, body)
		return Outgoing{Webhook: &w}, err
	}
	shown := withAttachmentLines(p.Fields, p.Attachments)
	switch q.Kind {
	case delivery.KindSlack, delivery.KindDiscord:
		w, err := r.chat(q, p.WebhookURLs[q.DeliveryID], p.FormName, p.Spam.verdict(), shown)
		return Outgoing{Webhook: &w}, err
	case delivery.KindTelegram:
		m, err := r.telegram(q, p.Destinations[q.DeliveryID].ChatID, p.FormName, p.Spam.verdict(), shown)
		return Outgoing{Telegram: &m}, err
	case delivery.KindGoogleSheets:
		row, err := r.row(q, p.Destinations[q.DeliveryID], q.At, p.Fields)
		return Outgoing{Row: &row}, err
	}
	m := Mail{DeliveryID: q.DeliveryID, MessageID: q.DeliveryID + "@formd", From: r.settings.From}
	if q.Kind == delivery.KindAutoresponder {
		if p.Autoresponder == nil || p.SubmitterEmail == "" {
			return Outgoing{}, fmt.Errorf("%w: no autoresponder in payload", ErrPermanent)
		}
		m.FromName, m.To, m.ReplyTo = cmp.Or(p.Autoresponder.FromName, form.DefaultFromName), p.SubmitterEmail, p.Autoresponder.ReplyTo
		r.templatedMail(&m, p.Templates.Autoresponder, templateData(q, p, nil, ""), p.Autoresponder.Subject, p.Autoresponder.Message+"\n", "")
	} else {
		// A routed notification goes to its rule's recipient, kept per delivery.
		m.FromName, m.To, m.Cc, m.ReplyTo = p.FromName, cmp.Or(p.Destinations[q.DeliveryID].Email, p.Recipient), p.CC, p.ReplyTo
		var spamLink string
		// A test submission has nothing to mark: it was never stored.
		if p.SpamLink && !test {
			spamLink = r.spamLink(q)
		}
		r.templatedMail(&m, p.Templates.Notification, templateData(q, p, links, spamLink), p.Subject, notificationText(p, links), defaultNotificationHTML)
		// A tagged submission's subject starts with the marker mail filters
		// sort by, whatever the form's subject template says.
		if p.Spam != nil && !strings.HasPrefix(m.Subject, submission.SpamSubjectMarker) {
			m.Subject = submission.SpamSubjectMarker + m.Subject
		}
		if spamLink != "" {
			m.Text += "\n" + spamLinkLine(spamLink)
		}
		for _, a := range p.Attachments {
			if a.Key == "" {
				m.Attachments = append(m.Attachments, MailAttachment{Name: a.Name, Type: submission.DeliveredType(a.Type), Content: a.Content})
			}
		}
	}
	return Outgoing{Mail: &m}, nil
}

// spamLink is the address of the page that marks the delivery's
// submission as spam: a token that names it, signed, and works for
// SpamLinkValidity from now (when the mail is rendered, at each attempt).
func (r *Renderer) spamLink(q delivery.Queued) string {
	token := r.spam.Token(SpamLink{FormID: q.FormID, SubmissionID: q.SubmissionID, Expires: r.clock.Now().Add(SpamLinkValidity)})
	return strings.TrimRight(r.settings.BaseURL, "/") + "/spam/" + token
}

// spamLinkLine is the last line of the notification mail of a form whose
// spam gate is on.
func spamLinkLine(link string) string {
	return "Was this spam? Mark it, so the spam filter learns: " + link + "\n"
}

// webhook signs body with the form's signing secrets valid now (the current
// one and any rotated out within the overlap). The secrets are read at send
// time, never stored with the delivery, so a rotation applies to every
// later attempt.
func (r *Renderer) webhook(ctx context.Context, q delivery.Queued, url string, body []byte) (Webhook, error) {
	now := r.clock.Now()
	secrets, err := signingSecrets(ctx, r.secrets, r.sealer, q.FormID, now)
	if err != nil {
		// Not the secret in the error: only that it could not be read.
		return Webhook{}, fmt.Errorf("read the form's webhook signing secrets: %w", err)
	}
	sig, err := delivery.WebhookSignature(q.DeliveryID, now.Unix(), body, secrets)
	if err != nil {
		return Webhook{}, fmt.Errorf("%w: %v", ErrPermanent, err)
	}
	return Webhook{ID: q.DeliveryID, URL: url, Body: body, Timestamp: now.Unix(), Signature: sig}, nil
}

// unsignedWebhook is webhook for a test rendering: it counts the secrets
// that would sign the request, never opening one, and shows a redacted
// signature for each.
func (r *Renderer) unsignedWebhook(ctx context.Context, q delivery.Queued, url string, body []byte) (Webhook, error) {
	now := r.clock.Now()
	stored, err := r.secrets.SigningSecrets(ctx, q.FormID, now)
	if err != nil {
		return Webhook{}, fmt.Errorf("count the form's webhook signing secrets: %w", err)
	}
	return Webhook{ID: q.DeliveryID, URL: url, Body: body, Timestamp: now.Unix(), Signature: delivery.RedactedWebhookSignatures(len(stored))}, nil
}

// chat builds the message of a Slack or Discord integration for its
// incoming webhook. It is not signed: neither service checks a signature,
// and the URL itself is the credential. Only the forwarded custom fields
// are in the message, as in a webhook body; spam is a tagged submission's
// verdict, nil otherwise.
func (r *Renderer) chat(q delivery.Queued, url, formName string, spam *submission.SpamVerdict, fields []submission.Field) (Webhook, error) {
	if url == "" {
		return Webhook{}, fmt.Errorf("%w: no %s webhook URL in payload", ErrPermanent, q.Kind)
	}
	build := chat.SlackMessage
	if q.Kind == delivery.KindDiscord {
		build = chat.DiscordMessage
	}
	body, err := build(formName, spam, fields)
	if err != nil {
		return Webhook{}, fmt.Errorf("%w: %v", ErrPermanent, err)
	}
	return Webhook{ID: q.DeliveryID, URL: url, Body: body, Timestamp: r.clock.Now().Unix()}, nil
}

// telegram builds the message of a Telegram integration to its chat: plain
// text, so nothing submitted is read as markup; spam is a tagged
// submission's verdict, nil otherwise.
func (r *Renderer) telegram(q delivery.Queued, chatID, formName string, spam *submission.SpamVerdict, fields []submission.Field) (TelegramMessage, error) {
	if chatID == "" {
		return TelegramMessage{}, fmt.Errorf("%w: no telegram chat in payload", ErrPermanent)
	}
	body, err := chat.TelegramMessage(chatID, formName, spam, fields)
	if err != nil {
		return TelegramMessage{}, fmt.Errorf("%w: %v", ErrPermanent, err)
	}
	return TelegramMessage{ID: q.DeliveryID, Body: body}, nil
}

// row builds a submission's row for a Google Sheets integration's sheet:
// the time it was accepted, then its fields' values by name.
func (r *Renderer) row(q delivery.Queued, to Destination, at time.Time, fields []submission.Field) (SheetRow, error) {
	if to.SpreadsheetID == "" || to.SheetName == "" {
		return SheetRow{}, fmt.Errorf("%w: no spreadsheet in payload", ErrPermanent)
	}
	return SheetRow{ID: q.DeliveryID, SpreadsheetID: to.SpreadsheetID, SheetName: to.SheetName, Values: chat.SheetRow(at, fields)}, nil
}

// sendWebhook signs and posts a webhook.
func (h *DeliverHandler) sendWebhook(ctx context.Context, q delivery.Queued, url string, body []byte) error {
	w, err := h.render.webhook(ctx, q, url, body)
	if err != nil {
		return err
	}
	return h.outbound.Send(ctx, w)
}

// sendChat posts a Slack or Discord message through the webhook sender, so
// it dials through the same SSRF guard and its outcome means the same. Only
// an integration's sample is sent this way, and a sample is never tagged.
func (h *DeliverHandler) sendChat(ctx context.Context, q delivery.Queued, url, formName string, fields []submission.Field) error {
	w, err := h.render.chat(q, url, formName, nil, fields)
	if err != nil {
		return err
	}
	return h.outbound.Send(ctx, w)
}

// sendTelegram sends a Telegram message with the operator's bot; as with
// sendChat, only an untagged sample goes this way.
func (h *DeliverHandler) sendTelegram(ctx context.Context, q delivery.Queued, chatID, formName string, fields []submission.Field) error {
	m, err := h.render.telegram(q, chatID, formName, nil, fields)
	if err != nil {
		return err
	}
	return h.outbound.SendTelegram(ctx, m)
}

// appendRow appends a row to a Google sheet as the operator's service account.
func (h *DeliverHandler) appendRow(ctx context.Context, q delivery.Queued, to Destination, at time.Time, fields []submission.Field) error {
	row, err := h.render.row(q, to, at, fields)
	if err != nil {
		return err
	}
	return h.outbound.AppendRow(ctx, row)
}

// FieldLines lists fields one a line as the notification mail shows them,
// "name: value" in submitted order; a value of several lines continues on
// indented lines. The spam classifier reads the same text.
func FieldLines(fields []submission.Field) string {
	var b strings.Builder
	for _, f := range fields {
		v := f.Value
		if strings.Contains(v, "\n") {
			v = "\n  " + strings.ReplaceAll(v, "\n", "\n  ")
		}
		fmt.Fprintf(&b, "%s: %s\n", f.Name, v)
	}
	return b.String()
}

// notificationText lists the submitted fields in their submitted order,
// then the download link of each file uploaded in advance.
func notificationText(p Payload, links map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "New submission to %s\n\n", p.FormName)
	b.WriteString(FieldLines(p.Fields))
	if len(links) > 0 {
		b.WriteString("\nFiles (download links):\n")
		for _, a := range p.Attachments {
			if url, ok := links[a.Key]; ok {
				fmt.Fprintf(&b, "%s: %s (%s, %d bytes)\n  %s\n  The link works until %s.\n", a.Field, safeObjectName(a.Name), a.Type, a.Size,
					url, a.LinksExpire.UTC().Format("2 January 2006 15:04 MST"))
			}
		}
	}
	return b.String()
}
