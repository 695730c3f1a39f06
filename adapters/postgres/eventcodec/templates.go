package eventcodec

import "github.com/formd/formd/domain/form"

// templatesV1 are a form's mail templates as stored; absent while every
// mail keeps its default, as in every event written before templates.
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
	return &templatesV1{Notification: messageTemplateV1(t.Notification), Autoresponder: messageTemplateV1(t.Autoresponder)}
}

func templatesFromV1(t *templatesV1) form.Templates {
	if t == nil {
		return form.Templates{}
	}
	return form.Templates{Notification: form.MessageTemplate(t.Notification), Autoresponder: form.MessageTemplate(t.Autoresponder)}
}
