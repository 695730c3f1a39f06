package web

import (
	"net/http"
	"strings"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
)

// newFormFields are the create form's fields, as typed.
type newFormFields struct {
	Name, RecipientEmail, AllowedDomains, SubjectDefault, FromNameDefault, RedirectDefault string
	// WorkspaceID is the chosen workspace; WorkspaceName, when typed, makes
	// a new one for the form, as POST /v1/forms's workspaceName does.
	WorkspaceID, WorkspaceName string
	// Workspaces are the account's, to choose from.
	Workspaces []application.WorkspaceRecord
	Errors     fieldErrors
}

// newFormFieldNames map the settings' names in errors to the page's fields.
var newFormFieldNames = map[string]string{
	"name": "name", "recipientEmail": "recipientEmail", "allowedDomains": "allowedDomains",
	"subjectDefault": "subjectDefault", "fromNameDefault": "fromNameDefault", "redirectDefault": "redirectDefault",
	"workspaceId": "workspaceId", "workspaceName": "workspaceName",
}

func (s *Server) showNewForm(w http.ResponseWriter, r *http.Request, v *visitor) {
	workspaces, err := s.app.Queries.ListWorkspaces.Handle(r.Context(), application.ListWorkspaces{Caller: v.Session})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "form-new", view{Title: "New form", Section: "forms", Visitor: v,
		Data: newFormFields{Workspaces: workspaces}})
}

// createdForm is the page shown once after a form is made: the access key
// and the ways to use it.
type createdForm struct {
	ID, Name, Recipient, AccessKey string
	Snippets                       snippets
}

// createForm creates the form through the same command as POST /v1/forms;
// the answer shows its access key this once, so it is never a redirect.
func (s *Server) createForm(w http.ResponseWriter, r *http.Request, v *visitor) {
	in := newFormFields{
		Name: strings.TrimSpace(r.PostFormValue("name")), RecipientEmail: strings.TrimSpace(r.PostFormValue("recipientEmail")),
		AllowedDomains: r.PostFormValue("allowedDomains"), SubjectDefault: r.PostFormValue("subjectDefault"),
		FromNameDefault: r.PostFormValue("fromNameDefault"), RedirectDefault: strings.TrimSpace(r.PostFormValue("redirectDefault")),
		WorkspaceID: strings.TrimSpace(r.PostFormValue("workspaceId")), WorkspaceName: strings.TrimSpace(r.PostFormValue("workspaceName")),
	}
	again := func(problems fieldErrors) {
		in.Errors = problems
		in.Workspaces, _ = s.app.Queries.ListWorkspaces.Handle(r.Context(), application.ListWorkspaces{Caller: v.Session})
		s.render(w, r, http.StatusBadRequest, "form-new", view{Title: "New form", Section: "forms", Visitor: v, Alert: problems[""], Data: in})
	}
	if in.Name == "" {
		again(fieldErrors{"name": "Give the form a name."})
		return
	}
	if in.RecipientEmail == "" {
		again(fieldErrors{"recipientEmail": "Enter the address that receives the submissions."})
		return
	}
	workspaceID := in.WorkspaceID
	if in.WorkspaceName != "" {
		workspaceID = "" // a new workspace of that name
	}
	out, err := s.app.Commands.CreateForm.Handle(r.Context(), application.CreateForm{
		Caller: v.Session, RequestID: requestIDOf(r), Language: s.requestLanguage(r), WorkspaceID: workspaceID, WorkspaceName: in.WorkspaceName,
		Settings: form.Settings{Name: in.Name, RecipientEmail: in.RecipientEmail, AllowedDomains: splitList(in.AllowedDomains),
			SubjectDefault: in.SubjectDefault, FromNameDefault: in.FromNameDefault, RedirectDefault: in.RedirectDefault},
	})
	if err != nil {
		if problems, ok := formProblem(err, newFormFieldNames); ok {
			again(problems)
			return
		}
		s.failed(w, r, err)
		return
	}
	page := createdForm{ID: out.Form.ID, Name: out.Form.Settings.Name, Recipient: out.Form.Settings.RecipientEmail,
		AccessKey: out.AccessKey, Snippets: s.snippetsFor(out.AccessKey)}
	s.render(w, r, http.StatusCreated, "form-created", view{Title: "Form created", Section: "forms", Visitor: v, Data: page})
}

// splitList reads a list typed one per line or separated by commas.
func splitList(s string) []string {
	return splitOn(s, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' })
}

// splitLines is a list typed one entry per line, whose entries may hold
// commas (words, patterns).
func splitLines(s string) []string {
	return splitOn(s, func(r rune) bool { return r == '\n' || r == '\r' })
}

func splitOn(s string, sep func(rune) bool) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, sep) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
