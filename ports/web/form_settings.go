package web

import (
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// settingsFields are the Settings tab's fields, as typed.
type settingsFields struct {
	Name, RecipientEmail, SubjectDefault, FromNameDefault, ReplyToMode, ReplyToDefault, RedirectDefault, AllowedDomains string
	AutoresponderEnabled                                                                                                bool
	AutoresponderSubject, AutoresponderMessage                                                                          string
	UploadsEnabled                                                                                                      bool
	Errors                                                                                                              fieldErrors
}

// settingsPage is the Settings tab.
type settingsPage struct {
	Form         formHeader
	Fields       settingsFields
	ReplyToModes []form.ReplyToMode
}

// settingsFieldNames map the settings' names in errors (as PATCH
// /v1/forms/{formId} names them) to the page's fields.
var settingsFieldNames = map[string]string{
	"name": "name", "recipientEmail": "recipientEmail", "allowedDomains": "allowedDomains",
	"subjectDefault": "subjectDefault", "fromNameDefault": "fromNameDefault", "redirectDefault": "redirectDefault",
	"replyToMode": "replyToMode", "replyToDefault": "replyToDefault", "uploadsEnabled": "uploadsEnabled",
	"autoresponder.subject": "autoresponderSubject", "autoresponder.message": "autoresponderMessage",
	"autoresponder": "autoresponderEnabled",
}

// listIndex is the "[3]" of a list entry's field name (allowedDomains[3]).
var listIndex = regexp.MustCompile(`\[\d+\]$`)

func fieldsOf(s form.Settings) settingsFields {
	return settingsFields{Name: s.Name, RecipientEmail: s.RecipientEmail, SubjectDefault: s.SubjectDefault,
		FromNameDefault: s.FromNameDefault, ReplyToMode: string(s.ReplyToMode), ReplyToDefault: s.ReplyToDefault,
		RedirectDefault: s.RedirectDefault, AllowedDomains: strings.Join(s.AllowedDomains, "\n"),
		AutoresponderEnabled: s.Autoresponder.Enabled, AutoresponderSubject: s.Autoresponder.Subject,
		AutoresponderMessage: s.Autoresponder.Message, UploadsEnabled: s.UploadsEnabled}
}

func (s *Server) showSettings(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Settings")
	if !ok {
		return
	}
	s.drawSettings(w, r, v, http.StatusOK, settingsPage{Form: f, Fields: fieldsOf(f.Settings)}, notices[r.URL.Query().Get("notice")])
}

func (s *Server) drawSettings(w http.ResponseWriter, r *http.Request, v *visitor, status int, page settingsPage, notice string) {
	page.ReplyToModes = []form.ReplyToMode{form.ReplyToSubmitter, form.ReplyToDefault, form.ReplyToNone}
	s.render(w, r, status, "form-settings", view{Title: page.Form.Name + ": settings", Section: "forms", Visitor: v,
		Notice: notice, Alert: page.Fields.Errors[""], Data: page})
}

// saveSettings saves every setting of the page through the same command as
// PATCH /v1/forms/{formId}, so it refuses with the same errors.
func (s *Server) saveSettings(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Settings")
	if !ok {
		return
	}
	in := settingsFields{
		Name: strings.TrimSpace(r.PostFormValue("name")), RecipientEmail: strings.TrimSpace(r.PostFormValue("recipientEmail")),
		SubjectDefault: r.PostFormValue("subjectDefault"), FromNameDefault: r.PostFormValue("fromNameDefault"),
		ReplyToMode: r.PostFormValue("replyToMode"), ReplyToDefault: strings.TrimSpace(r.PostFormValue("replyToDefault")),
		RedirectDefault: strings.TrimSpace(r.PostFormValue("redirectDefault")), AllowedDomains: r.PostFormValue("allowedDomains"),
		AutoresponderEnabled: r.PostFormValue("autoresponderEnabled") == "on",
		AutoresponderSubject: r.PostFormValue("autoresponderSubject"), AutoresponderMessage: r.PostFormValue("autoresponderMessage"),
		UploadsEnabled: r.PostFormValue("uploadsEnabled") == "on",
	}
	domains := splitList(in.AllowedDomains)
	if domains == nil {
		domains = []string{}
	}
	mode := form.ReplyToMode(in.ReplyToMode)
	auto := form.Autoresponder{Enabled: in.AutoresponderEnabled, Subject: in.AutoresponderSubject, Message: in.AutoresponderMessage}
	patch := form.Patch{Name: &in.Name, RecipientEmail: &in.RecipientEmail, AllowedDomains: &domains,
		SubjectDefault: &in.SubjectDefault, FromNameDefault: &in.FromNameDefault, RedirectDefault: &in.RedirectDefault,
		ReplyToMode: &mode, ReplyToDefault: &in.ReplyToDefault, Autoresponder: &auto, UploadsEnabled: &in.UploadsEnabled}
	_, err := s.app.Commands.UpdateForm.Handle(r.Context(), application.UpdateForm{Caller: v.Session, RequestID: requestIDOf(r),
		FormID: f.ID, Patch: patch})
	if err != nil {
		var invalid *domain.InvalidInputError
		if errors.As(err, &invalid) {
			// An entry of a list is shown next to the list's field.
			field := listIndex.ReplaceAllString(invalid.Field, "")
			if name, ok := settingsFieldNames[field]; ok {
				in.Errors = fieldErrors{name: upperFirst(invalid.Message)}
				s.drawSettings(w, r, v, http.StatusBadRequest, settingsPage{Form: f, Fields: in}, "")
				return
			}
		}
		if problems, ok := formProblem(err, settingsFieldNames); ok {
			in.Errors = problems
			s.drawSettings(w, r, v, http.StatusBadRequest, settingsPage{Form: f, Fields: in}, "")
			return
		}
		s.failed(w, r, err)
		return
	}
	notice := "settings-saved"
	if !strings.EqualFold(in.RecipientEmail, f.Recipient) {
		notice = "settings-saved-recipient"
	}
	http.Redirect(w, r, Prefix+"/forms/"+f.ID+"/settings?notice="+notice, http.StatusSeeOther)
}
