package portkit

import "github.com/formd/formd/domain/form"

// Templates are a form's own mail templates (Mustache, docs/templates.md),
// as shown and as set; a change replaces them whole.
type Templates struct {
	Notification  MessageTemplate `json:"notification" jsonschema:"the notification email to the form's recipient"`
	Autoresponder MessageTemplate `json:"autoresponder" jsonschema:"the autoresponder's email to the submitter; wins over autoresponder.subject and message where set"`
}

// MessageTemplate is one mail's templates; a blank part keeps formd's
// default for it.
type MessageTemplate struct {
	Subject string `json:"subject,omitempty" jsonschema:"the subject template, one line; rendered as text, then its white space collapsed"`
	Text    string `json:"text,omitempty" jsonschema:"the text body template, at most 20000 bytes; values are inserted as they are"`
	HTML    string `json:"html,omitempty" jsonschema:"the HTML body template, at most 20000 bytes; every value is HTML-escaped and unescaped tags ({{{x}}}, {{&x}}) are refused; sent as multipart/alternative with the text"`
}

// Settings is the templates as the domain keeps them.
func (t Templates) Settings() form.Templates {
	return form.Templates{Notification: form.MessageTemplate(t.Notification), Autoresponder: form.MessageTemplate(t.Autoresponder)}
}

// PresentTemplates shows a form's templates.
func PresentTemplates(t form.Templates) Templates {
	return Templates{Notification: MessageTemplate(t.Notification), Autoresponder: MessageTemplate(t.Autoresponder)}
}
