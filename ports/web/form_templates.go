package web

import (
	"errors"
	"net/http"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// templatesForm is the settings page's "Mail templates" card: the
// templates as typed, their errors by input, and a preview of both mails.
type templatesForm struct {
	Values  form.Templates
	Errors  fieldErrors
	Preview *application.TemplatePreview
	// SampleFields are the fields a preview renders with.
	SampleFields []submission.Field
}

// templateInputs name each template part's input, as errors name it.
var templateInputs = map[string]string{
	"templates.notification.subject": "tplNotificationSubject", "templates.notification.text": "tplNotificationText",
	"templates.notification.html": "tplNotificationHtml", "templates.autoresponder.subject": "tplAutoresponderSubject",
	"templates.autoresponder.text": "tplAutoresponderText", "templates.autoresponder.html": "tplAutoresponderHtml",
}

// previewFields are the sample fields a preview renders with.
var previewFields = []submission.Field{{Name: "name", Value: "Ada Lovelace"}, {Name: "email", Value: "ada@example.com"},
	{Name: "message", Value: "Hello!\nCould you call me back <tomorrow>?"}}

// saveTemplates saves the typed templates, or with action=preview renders
// them with sample fields without saving; either way a refusal shows on
// the input of the part at fault.
func (s *Server) saveTemplates(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Settings")
	if !ok {
		return
	}
	in := &templatesForm{Values: form.Templates{
		Notification: form.MessageTemplate{Subject: r.PostFormValue("tplNotificationSubject"),
			Text: r.PostFormValue("tplNotificationText"), HTML: r.PostFormValue("tplNotificationHtml")},
		Autoresponder: form.MessageTemplate{Subject: r.PostFormValue("tplAutoresponderSubject"),
			Text: r.PostFormValue("tplAutoresponderText"), HTML: r.PostFormValue("tplAutoresponderHtml")},
	}, SampleFields: previewFields}
	page := settingsPage{Form: f, Fields: fieldsOf(f.Settings), Templates: in}
	var err error
	if r.PostFormValue("action") == "preview" {
		var preview application.TemplatePreview
		preview, err = s.app.Queries.PreviewTemplates.Handle(r.Context(), application.PreviewTemplates{Caller: v.Session,
			FormID: f.ID, Templates: in.Values, Fields: previewFields})
		if err == nil {
			in.Preview = &preview
			allowMailFrames(w)
			s.drawSettings(w, r, v, http.StatusOK, page, "")
			return
		}
	} else {
		_, err = s.app.Commands.UpdateForm.Handle(r.Context(), application.UpdateForm{Caller: v.Session, RequestID: requestIDOf(r), Language: s.requestLanguage(r),
			FormID: f.ID, Patch: form.Patch{Templates: &in.Values}})
		if err == nil {
			http.Redirect(w, r, Prefix+"/forms/"+f.ID+"/settings?notice=settings-saved#mail-templates", http.StatusSeeOther)
			return
		}
	}
	var invalid *domain.InvalidInputError
	if errors.As(err, &invalid) && templateInputs[invalid.Field] != "" {
		in.Errors = fieldErrors{templateInputs[invalid.Field]: invalid.Message}
		s.drawSettings(w, r, v, http.StatusBadRequest, page, "")
		return
	}
	s.failed(w, r, err)
}
