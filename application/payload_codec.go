package application

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// payloadVersion is the version of the stored payload shape that
// encodePayload writes. A payload stays sealed in the database until every
// delivery of its submission is final, so each version ever written must
// keep decoding: a new shape gets a new version and decodePayload an arm
// for it, and the record types below never change but by an optional
// field that payloads written before it decode without (omitempty).
const payloadVersion = 1

// errPayloadVersion is a payload written in a version this formd does not
// read (a newer formd wrote it): the operator's to fix by upgrading, so its
// deliveries wait like those of a payload no configured key opens.
var errPayloadVersion = fmt.Errorf("%w: payload written by a newer formd", ErrUnsealable)

// encodePayload is the bytes sealed for a payload: its stored shape, with
// the version that shape is.
func encodePayload(p Payload) ([]byte, error) {
	return json.Marshal(payloadV1From(p))
}

// decodePayload reads the bytes a sealed payload opened to. Payloads
// sealed before the shape named its version carry none: they are version 1.
func decodePayload(b []byte) (Payload, error) {
	var head struct {
		Version int `json:"v"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Payload{}, err
	}
	switch head.Version {
	case 0, 1:
		var s payloadV1
		if err := json.Unmarshal(b, &s); err != nil {
			return Payload{}, err
		}
		return s.payload(), nil
	default:
		return Payload{}, fmt.Errorf("%w: version %d", errPayloadVersion, head.Version)
	}
}

// payloadV1 is version 1 of the stored payload.
type payloadV1 struct {
	Version        int                      `json:"v"`
	Fields         []fieldV1                `json:"fields"`
	Recipient      string                   `json:"recipient"`
	Subject        string                   `json:"subject"`
	FromName       string                   `json:"fromName"`
	ReplyTo        string                   `json:"replyTo,omitempty"`
	CC             []string                 `json:"cc,omitempty"`
	SubmitterEmail string                   `json:"submitterEmail,omitempty"`
	Webhook        string                   `json:"webhook,omitempty"`
	Autoresponder  *autoresponderV1         `json:"autoresponder,omitempty"`
	FormName       string                   `json:"formName"`
	RequestID      string                   `json:"requestId,omitempty"`
	Integrations   map[string]string        `json:"integrations,omitempty"`
	WebhookURLs    map[string]string        `json:"webhookUrls,omitempty"`
	Destinations   map[string]destinationV1 `json:"destinations,omitempty"`
	Attachments    []attachmentV1           `json:"attachments,omitempty"`
	Spam           *spamTagV1               `json:"spam,omitempty"`
	Held           *spamTagV1               `json:"held,omitempty"`
	SpamLink       bool                     `json:"spamLink,omitempty"`
	Templates      *templatesV1             `json:"templates,omitempty"`
}

// templatesV1 is a form's mail templates as a payload stores them.
type templatesV1 struct {
	Notification  messageTemplateV1 `json:"notification,omitzero"`
	Autoresponder messageTemplateV1 `json:"autoresponder,omitzero"`
}

type messageTemplateV1 struct {
	Subject string `json:"subject,omitempty"`
	Text    string `json:"text,omitempty"`
	HTML    string `json:"html,omitempty"`
}

func templatesToV1(t form.Templates) *templatesV1 {
	if t.IsZero() {
		return nil
	}
	n, a := t.Notification, t.Autoresponder
	return &templatesV1{Notification: messageTemplateV1{Subject: n.Subject, Text: n.Text, HTML: n.HTML},
		Autoresponder: messageTemplateV1{Subject: a.Subject, Text: a.Text, HTML: a.HTML}}
}

func (t *templatesV1) templates() form.Templates {
	if t == nil {
		return form.Templates{}
	}
	n, a := t.Notification, t.Autoresponder
	return form.Templates{Notification: form.MessageTemplate{Subject: n.Subject, Text: n.Text, HTML: n.HTML},
		Autoresponder: form.MessageTemplate{Subject: a.Subject, Text: a.Text, HTML: a.HTML}}
}

type spamTagV1 struct {
	Score   float64  `json:"score"`
	Reasons []string `json:"reasons,omitempty"`
}

func spamTagToV1(t *SpamTag) *spamTagV1 {
	if t == nil {
		return nil
	}
	return &spamTagV1{Score: t.Score, Reasons: t.Reasons}
}

func (t *spamTagV1) tag() *SpamTag {
	if t == nil {
		return nil
	}
	return &SpamTag{Score: t.Score, Reasons: t.Reasons}
}

type fieldV1 struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type autoresponderV1 struct {
	Subject  string `json:"subject"`
	Message  string `json:"message"`
	FromName string `json:"fromName,omitempty"`
	ReplyTo  string `json:"replyTo,omitempty"`
}

type destinationV1 struct {
	Email         string `json:"email,omitempty"`
	ChatID        string `json:"chatId,omitempty"`
	SpreadsheetID string `json:"spreadsheetId,omitempty"`
	SheetName     string `json:"sheetName,omitempty"`
}

type attachmentV1 struct {
	Field       string    `json:"field"`
	Name        string    `json:"name"`
	Type        string    `json:"type"`
	Size        int64     `json:"size"`
	Content     []byte    `json:"content,omitempty"`
	Key         string    `json:"key,omitempty"`
	LinksExpire time.Time `json:"linksExpire,omitzero"`
}

func payloadV1From(p Payload) payloadV1 {
	s := payloadV1{Version: payloadVersion, Recipient: p.Recipient, Subject: p.Subject, FromName: p.FromName, ReplyTo: p.ReplyTo,
		CC: p.CC, SubmitterEmail: p.SubmitterEmail, Webhook: p.Webhook, FormName: p.FormName, RequestID: p.RequestID,
		WebhookURLs: p.WebhookURLs, SpamLink: p.SpamLink}
	if p.Fields != nil {
		s.Fields = make([]fieldV1, len(p.Fields))
		for i, f := range p.Fields {
			s.Fields[i] = fieldV1{Name: f.Name, Value: f.Value}
		}
	}
	if a := p.Autoresponder; a != nil {
		s.Autoresponder = &autoresponderV1{Subject: a.Subject, Message: a.Message, FromName: a.FromName, ReplyTo: a.ReplyTo}
	}
	if p.Integrations != nil {
		s.Integrations = make(map[string]string, len(p.Integrations))
		for id, t := range p.Integrations {
			s.Integrations[id] = string(t)
		}
	}
	if p.Destinations != nil {
		s.Destinations = make(map[string]destinationV1, len(p.Destinations))
		for id, d := range p.Destinations {
			s.Destinations[id] = destinationV1{Email: d.Email, ChatID: d.ChatID, SpreadsheetID: d.SpreadsheetID, SheetName: d.SheetName}
		}
	}
	s.Spam, s.Held = spamTagToV1(p.Spam), spamTagToV1(p.Held)
	s.Templates = templatesToV1(p.Templates)
	for _, a := range p.Attachments {
		s.Attachments = append(s.Attachments, attachmentV1{Field: a.Field, Name: a.Name, Type: a.Type, Size: a.Size,
			Content: a.Content, Key: a.Key, LinksExpire: a.LinksExpire})
	}
	return s
}

func (s payloadV1) payload() Payload {
	p := Payload{Recipient: s.Recipient, Subject: s.Subject, FromName: s.FromName, ReplyTo: s.ReplyTo, CC: s.CC,
		SubmitterEmail: s.SubmitterEmail, Webhook: s.Webhook, FormName: s.FormName, RequestID: s.RequestID, WebhookURLs: s.WebhookURLs,
		SpamLink: s.SpamLink}
	if s.Fields != nil {
		p.Fields = make([]submission.Field, len(s.Fields))
		for i, f := range s.Fields {
			p.Fields[i] = submission.Field{Name: f.Name, Value: f.Value}
		}
	}
	if a := s.Autoresponder; a != nil {
		p.Autoresponder = &AutoresponderMail{Subject: a.Subject, Message: a.Message, FromName: a.FromName, ReplyTo: a.ReplyTo}
	}
	if s.Integrations != nil {
		p.Integrations = make(map[string]form.IntegrationType, len(s.Integrations))
		for id, t := range s.Integrations {
			p.Integrations[id] = form.IntegrationType(t)
		}
	}
	if s.Destinations != nil {
		p.Destinations = make(map[string]Destination, len(s.Destinations))
		for id, d := range s.Destinations {
			p.Destinations[id] = Destination{Email: d.Email, ChatID: d.ChatID, SpreadsheetID: d.SpreadsheetID, SheetName: d.SheetName}
		}
	}
	p.Spam, p.Held = s.Spam.tag(), s.Held.tag()
	p.Templates = s.Templates.templates()
	for _, a := range s.Attachments {
		p.Attachments = append(p.Attachments, Attachment{Field: a.Field, Name: a.Name, Type: a.Type, Size: a.Size,
			Content: a.Content, Key: a.Key, LinksExpire: a.LinksExpire})
	}
	return p
}
