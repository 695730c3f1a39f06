package submission

import (
	"strings"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
)

// Default texts of planned mail.
const (
	DefaultAutoresponderSubject = "We received your message"
	DefaultAutoresponderMessage = "Thank you. We received your submission and will get back to you."
)

// Plan is what an accepted submission sends, decided from the form's settings
// and the routing fields when it is accepted: the notification always, an
// autoresponder and a webhook when they apply.
type Plan struct {
	recipient string
	// routing says who gets the notification; nil while the plan sends
	// it to the primary recipient alone.
	routing        *Routing
	cc             []string
	subject        string
	fromName       string
	replyTo        string
	submitterEmail string
	autoresponder  *Autoresponder
	webhook        string
	// integrationWebhook is the target URL of the form's enabled webhook
	// integration; blank when it has none.
	integrationWebhook string
	// chats are the deliveries of the form's enabled Slack, Discord,
	// Telegram and Google Sheets integrations, in that order.
	chats []Planned
	// spam is the spam gate's verdict when it tagged the submission.
	spam *SpamVerdict
	// held is the spam gate's verdict when it held the submission.
	held *SpamVerdict
}

// SpamSubjectMarker starts the notification subject of a submission tagged
// as spam, so a recipient's mail filter can sort it.
const SpamSubjectMarker = "[SPAM] "

// TaggedSpam is the plan of a submission the spam gate tagged: its
// notification subject is marked and its deliveries carry the verdict.
func (p Plan) TaggedSpam(v SpamVerdict) Plan {
	if p.spam == nil {
		p.subject = SpamSubjectMarker + p.subject
	}
	p.spam = &v
	return p
}

// Spam is the spam verdict the deliveries carry; false when the submission
// was not tagged as spam.
func (p Plan) Spam() (SpamVerdict, bool) {
	if p.spam == nil {
		return SpamVerdict{}, false
	}
	return *p.spam, true
}

// HeldSpam is the plan of a submission the spam gate held for the form's
// Spam folder: nothing is sent until the owner releases it, and then its
// deliveries go out as planned, unmarked (the owner judged it not spam).
func (p Plan) HeldSpam(v SpamVerdict) Plan {
	p.held = &v
	return p
}

// Held is the spam verdict that held the submission; false when its
// deliveries go out at once.
func (p Plan) Held() (SpamVerdict, bool) {
	if p.held == nil {
		return SpamVerdict{}, false
	}
	return *p.held, true
}

// Recipient is the form's recipient, to whom the notification goes.
func (p Plan) Recipient() string { return p.recipient }

// CC are the notification's copy recipients.
func (p Plan) CC() []string { return p.cc }

// Subject is the notification's subject, on one line.
func (p Plan) Subject() string { return p.subject }

// FromName is the notification's sender name, on one line.
func (p Plan) FromName() string { return p.fromName }

// ReplyTo is the notification's Reply-To; blank for none.
func (p Plan) ReplyTo() string { return p.replyTo }

// SubmitterEmail is the email field as submitted, blank when absent.
func (p Plan) SubmitterEmail() string { return p.submitterEmail }

// Autoresponder is the confirmation to the submitter, when one is sent.
func (p Plan) Autoresponder() (Autoresponder, bool) {
	if p.autoresponder == nil {
		return Autoresponder{}, false
	}
	return *p.autoresponder, true
}

// Webhook is the per-submit webhook URL; blank when none.
func (p Plan) Webhook() string { return p.webhook }

// Autoresponder is the confirmation mail to the submitter. The submitter
// chooses where it goes (its email field), so nothing else of it is theirs to
// choose: it is sent under the form's own sender name, and its Reply-To is
// the form's replyToDefault or none, never the recipient's address.
type Autoresponder struct {
	Subject  string
	Message  string
	FromName string
	ReplyTo  string
}

// notificationSubject is the notification's subject, on one line: the
// submitted subject, else the form's default, else one naming the form.
func notificationSubject(st form.Settings, env Envelope) string {
	return oneLine(firstNonBlank(env.Subject, st.SubjectDefault, "New submission: "+st.Name))
}

// PlanDeliveries decides what an accepted submission sends.
func PlanDeliveries(st form.Settings, env Envelope) Plan {
	p := Plan{
		recipient:      st.RecipientEmail,
		cc:             SplitCC(env.CC),
		subject:        notificationSubject(st, env),
		fromName:       oneLine(firstNonBlank(env.FromName, st.FromNameDefault, form.DefaultFromName)),
		replyTo:        ReplyTo(st, env),
		submitterEmail: env.Email,
		webhook:        env.Webhook,
	}
	// An autoresponder goes only to an address that is one: the email field
	// is not checked unless a rule says so.
	if st.Autoresponder.Enabled && domain.IsEmailAddress(env.Email) {
		p.autoresponder = &Autoresponder{
			Subject:  firstNonBlank(st.Autoresponder.Subject, DefaultAutoresponderSubject),
			Message:  firstNonBlank(st.Autoresponder.Message, DefaultAutoresponderMessage),
			FromName: oneLine(firstNonBlank(st.FromNameDefault, form.DefaultFromName)),
			ReplyTo:  st.ReplyToDefault,
		}
	}
	return p
}

// MailText is a mail's subject and message.
type MailText struct{ Subject, Message string }

// WithAutoresponderDefaults puts defaults, the words formd's default
// autoresponder has in the submitter's language, where the form has none
// of its own; blank defaults keep the English ones.
func (p Plan) WithAutoresponderDefaults(st form.Settings, defaults MailText) Plan {
	if p.autoresponder == nil {
		return p
	}
	a := *p.autoresponder
	a.Subject = firstNonBlank(st.Autoresponder.Subject, defaults.Subject, DefaultAutoresponderSubject)
	a.Message = firstNonBlank(st.Autoresponder.Message, defaults.Message, DefaultAutoresponderMessage)
	p.autoresponder = &a
	return p
}

// WithRouting is the plan whose notification goes where the form's
// routing rules decided (Route).
func (p Plan) WithRouting(r Routing) Plan {
	p.routing = &r
	return p
}

// Routing is where the notification goes and, for a dry run, why.
func (p Plan) Routing() Routing {
	if p.routing == nil {
		return Routing{Notifications: []Notification{{Recipient: p.recipient}}}
	}
	return *p.routing
}

// WithoutAutoresponder is the plan without its autoresponder (one already
// went to the address within the hour).
func (p Plan) WithoutAutoresponder() Plan {
	p.autoresponder = nil
	return p
}

// WithIntegrations adds the deliveries of the form's enabled integrations
// that have what they need: the webhook, then Slack, Discord, Telegram and
// Google Sheets, in that order.
func (p Plan) WithIntegrations(list []form.Integration) Plan {
	byType := map[form.IntegrationType]Planned{}
	p.integrationWebhook = ""
	for _, in := range list {
		if !in.Enabled {
			continue
		}
		planned, ok := plannedFor(in)
		if !ok {
			continue
		}
		if in.Type == form.IntegrationWebhook {
			p.integrationWebhook = in.TargetURL
			continue
		}
		byType[in.Type] = planned
	}
	// Built afresh, in a fixed order, so the plan never depends on the
	// order the integrations were listed in.
	p.chats = nil
	for _, t := range form.IntegrationTypes {
		if planned, ok := byType[t]; ok {
			p.chats = append(p.chats, planned)
		}
	}
	return p
}

// plannedFor is the delivery an integration makes; false when it lacks the
// setting it sends to.
func plannedFor(in form.Integration) (Planned, bool) {
	switch in.Type {
	case form.IntegrationWebhook, form.IntegrationSlack, form.IntegrationDiscord:
		kind := map[form.IntegrationType]string{form.IntegrationWebhook: delivery.KindWebhook, form.IntegrationSlack: delivery.KindSlack,
			form.IntegrationDiscord: delivery.KindDiscord}[in.Type]
		return Planned{Kind: kind, Target: delivery.WebhookTarget(in.TargetURL), WebhookURL: in.TargetURL, Integration: in.Type},
			in.TargetURL != ""
	case form.IntegrationTelegram:
		return Planned{Kind: delivery.KindTelegram, Target: delivery.TelegramTarget(in.ChatID), ChatID: in.ChatID, Integration: in.Type},
			in.ChatID != ""
	case form.IntegrationGoogleSheets:
		return Planned{Kind: delivery.KindGoogleSheets, Target: delivery.SheetTarget(in.SpreadsheetID), SpreadsheetID: in.SpreadsheetID,
			SheetName: in.SheetName, Integration: in.Type}, in.SpreadsheetID != "" && in.SheetName != "" && in.SheetProven
	}
	return Planned{}, false
}

// Planned is one delivery a plan queues.
type Planned struct {
	Kind string
	// Target is where it goes, shown safely for the delivery log.
	Target string
	// WebhookURL is where a webhook or chat delivery posts; blank for mail.
	WebhookURL string
	// ChatID is the Telegram chat a Telegram delivery goes to.
	ChatID string
	// SpreadsheetID and SheetName are where a Google Sheets delivery appends.
	SpreadsheetID, SheetName string
	// Integration is the integration the delivery is for; blank for the
	// form's own mail and a per-submit webhook.
	Integration form.IntegrationType
	// Recipient is where a notification mail goes.
	Recipient string
	// Note says, for the delivery log, why a notification went where it
	// did when a routing rule's recipient was skipped.
	Note string
}

// Deliveries are what the plan queues, the notifications first (one per
// routed recipient, else the primary's), then the autoresponder, the
// per-submit webhook, the webhook integration and the Slack, Discord,
// Telegram and Google Sheets integrations when they apply. Both webhooks
// are of KindWebhook and differ by their URL.
func (p Plan) Deliveries() []Planned {
	var out []Planned
	for _, n := range p.Routing().Notifications {
		out = append(out, Planned{Kind: delivery.KindEmail, Target: delivery.EmailTarget(n.Recipient), Recipient: n.Recipient, Note: n.Note})
	}
	if p.autoresponder != nil {
		out = append(out, Planned{Kind: delivery.KindAutoresponder, Target: delivery.EmailTarget(p.submitterEmail)})
	}
	if p.webhook != "" {
		out = append(out, Planned{Kind: delivery.KindWebhook, Target: delivery.WebhookTarget(p.webhook), WebhookURL: p.webhook})
	}
	if u := p.integrationWebhook; u != "" {
		out = append(out, Planned{Kind: delivery.KindWebhook, Target: delivery.WebhookTarget(u), WebhookURL: u,
			Integration: form.IntegrationWebhook})
	}
	return append(out, p.chats...)
}

// Kinds are the kinds of the plan's deliveries, in their order.
func (p Plan) Kinds() []string {
	planned := p.Deliveries()
	kinds := make([]string, len(planned))
	for i, d := range planned {
		kinds[i] = d.Kind
	}
	return kinds
}

// Target is where a delivery of kind goes, shown safely for the delivery log:
// the recipient's or submitter's domain, the per-submit webhook's host.
func (p Plan) Target(kind string) string {
	switch kind {
	case delivery.KindEmail:
		return delivery.EmailTarget(p.recipient)
	case delivery.KindAutoresponder:
		return delivery.EmailTarget(p.submitterEmail)
	case delivery.KindWebhook:
		return delivery.WebhookTarget(p.webhook)
	}
	return ""
}

// ReplyTo follows the form's reply-to mode; a per-submit replyto overrides
// it unless the mode is none. In submitter mode the email field is used only
// when it is an address.
func ReplyTo(st form.Settings, env Envelope) string {
	switch st.ReplyToMode {
	case form.ReplyToNone:
		return ""
	case form.ReplyToDefault:
		return firstNonBlank(env.ReplyTo, st.ReplyToDefault)
	default:
		if env.ReplyTo != "" {
			return env.ReplyTo
		}
		if domain.IsEmailAddress(env.Email) {
			return env.Email
		}
		return ""
	}
}

// Redirect is where a plain HTML post goes once accepted: the submitted
// redirect, else the form's default; blank means the hosted success page. A
// JSON client is never redirected.
func Redirect(st form.Settings, env Envelope, jsonClient bool) string {
	if jsonClient {
		return ""
	}
	return firstNonBlank(env.Redirect, st.RedirectDefault)
}

// oneLine keeps a header value on one line: submitted line breaks must never
// become extra mail headers.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func firstNonBlank(values ...string) string {
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
