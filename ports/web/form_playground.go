package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/submission"
)

// playgroundRows is how many name/value rows the playground offers at least;
// a run keeps the rows filled in and adds empty ones up to it.
const playgroundRows = 5

// playgroundFields are the playground's inputs, as typed.
type playgroundFields struct {
	Origin string
	Rows   []submission.Field
	Errors fieldErrors
}

// playgroundResult is a dry run's verdict, gate by gate.
type playgroundResult struct {
	Passed      bool
	Message     string
	RequestID   string
	Gates       []application.GateResult
	FieldErrors []submission.FieldError
	// RecipientVerified says whether a live submission would be delivered now.
	RecipientVerified bool
}

// playgroundPage is the Playground tab.
type playgroundPage struct {
	Form   formHeader
	Fields playgroundFields
	Result *playgroundResult
}

func (s *Server) showPlayground(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Playground")
	if !ok {
		return
	}
	in := playgroundFields{Rows: []submission.Field{{Name: "email", Value: "someone@example.com"}, {Name: "message", Value: "Hello!"}}}
	if len(f.AllowedDomains) > 0 {
		in.Origin = "https://" + f.AllowedDomains[0]
	}
	s.drawPlayground(w, r, v, http.StatusOK, playgroundPage{Form: f, Fields: in}, "")
}

// drawPlayground shows the page, padding the rows with empty ones.
func (s *Server) drawPlayground(w http.ResponseWriter, r *http.Request, v *visitor, status int, page playgroundPage, alert string) {
	for len(page.Fields.Rows) < playgroundRows || page.Fields.Rows[len(page.Fields.Rows)-1] != (submission.Field{}) {
		page.Fields.Rows = append(page.Fields.Rows, submission.Field{})
	}
	s.render(w, r, status, "form-playground", view{Title: page.Form.Name + ": playground", Section: "forms", Visitor: v,
		Alert: alert, Data: page})
}

// runPlayground runs a dry run of the typed fields through the Submit
// command, as POST /submit with X-Service-Dry-Run: true does: every gate
// judges it, nothing is stored or sent.
func (s *Server) runPlayground(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Playground")
	if !ok {
		return
	}
	_ = r.ParseForm()
	in := playgroundFields{Origin: strings.TrimSpace(r.PostFormValue("origin"))}
	names, values := r.PostForm["name"], r.PostForm["value"]
	for i, name := range names {
		value := ""
		if i < len(values) {
			value = values[i]
		}
		if strings.TrimSpace(name) == "" && value == "" {
			continue
		}
		in.Rows = append(in.Rows, submission.Field{Name: strings.TrimSpace(name), Value: value})
	}
	page := playgroundPage{Form: f, Fields: in}
	problems := fieldErrors{}
	if in.Origin != "" {
		if u, err := url.Parse(in.Origin); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			problems["origin"] = "Enter a website's address such as https://example.com, or leave it empty."
		}
	}
	for i, row := range in.Rows {
		if row.Name == "" {
			problems["rows"] = "Row " + strconv.Itoa(i+1) + " has a value but no field name."
			break
		}
	}
	if len(problems) > 0 {
		page.Fields.Errors = problems
		s.drawPlayground(w, r, v, http.StatusBadRequest, page, "")
		return
	}
	fields := append([]submission.Field(nil), in.Rows...)
	// The form is named by its id (loadForm checked that the person owns it):
	// formd keeps only its access key's hash.
	out, err := s.app.Commands.Submit.Handle(r.Context(), application.Submit{FormID: f.ID, Fields: fields,
		Origin: in.Origin, RemoteIP: s.proxies.clientIP(r).String(), DryRun: true, JSONClient: true, RequestID: requestIDOf(r)})
	resp := out.Response
	var rejected *application.SubmissionRejected
	var tooMany *domain.TooManyRequestsError
	switch {
	case errors.As(err, &rejected):
		resp = rejected.Response
	case errors.As(err, &tooMany):
		s.drawPlayground(w, r, v, http.StatusTooManyRequests, page, tooMany.Message)
		return
	case err != nil:
		if problems, ok := formProblem(err, nil); ok {
			s.drawPlayground(w, r, v, http.StatusBadRequest, page, problems[""])
			return
		}
		s.failed(w, r, err)
		return
	}
	result := &playgroundResult{Passed: resp.Success, Message: resp.Message, RequestID: requestIDOf(r), Gates: resp.Gates,
		FieldErrors: resp.Errors}
	if resp.Validation != nil {
		result.RecipientVerified = resp.Validation.RecipientVerified
	}
	page.Result = result
	s.drawPlayground(w, r, v, http.StatusOK, page, "")
}
