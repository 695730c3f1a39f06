package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/submission"
	"github.com/formd/formd/ports/portkit"
)

// submissionFilter is the Submissions tab's filter, as typed: From and To
// are days (UTC), both included.
type submissionFilter struct {
	From, To, Status, Email, Field, Value string
	Errors                                fieldErrors
}

// submissionFilterFields are the filter's inputs by the names the
// application's refusals give them.
var submissionFilterFields = map[string]string{"from": "from", "to": "to", "status": "status", "email": "email",
	"field": "field", "value": "value"}

// archiveStatuses are the status filter's choices, as the API names them.
var archiveStatuses = []string{application.ArchivedPending, application.ArchivedDelivered, application.ArchivedFailed}

func submissionFilterOf(query url.Values) submissionFilter {
	return submissionFilter{From: query.Get("from"), To: query.Get("to"), Status: query.Get("status"),
		Email: query.Get("email"), Field: query.Get("field"), Value: query.Get("value")}
}

// Active says whether anything is filtered.
func (f submissionFilter) Active() bool {
	return f.From != "" || f.To != "" || f.Status != "" || f.Email != "" || f.Field != "" || f.Value != ""
}

// values are the filter as typed, the tab's query parameters.
func (f submissionFilter) values() url.Values {
	q := url.Values{}
	for name, value := range map[string]string{"from": f.From, "to": f.To, "status": f.Status, "email": f.Email,
		"field": f.Field, "value": f.Value} {
		if value != "" {
			q.Set(name, value)
		}
	}
	return q
}

// apiQuery is the filter as the API's query parameters (the list's and the
// export's): the API's to is excluded, so a day typed in To becomes the
// next day.
func (f submissionFilter) apiQuery() url.Values {
	q := f.values()
	if day, err := time.Parse(time.DateOnly, f.To); err == nil {
		q.Set("to", day.AddDate(0, 0, 1).Format(time.DateOnly))
	}
	return q
}

// list is the filter as the application's query; a time it cannot read is
// refused naming its field, as the API does.
func (f submissionFilter) list() (application.ListSubmissions, error) {
	api := f.apiQuery()
	q := application.ListSubmissions{Status: f.Status, Email: f.Email, Field: f.Field, Value: f.Value}
	var err error
	if q.From, err = portkit.ArchiveTime("from", api.Get("from")); err != nil {
		return q, err
	}
	q.To, err = portkit.ArchiveTime("to", api.Get("to"))
	return q, err
}

// submissionRow is one archived submission as the tab's table shows it.
type submissionRow struct {
	ID, Submitter, Summary, Status string
	SubmittedAt                    time.Time
}

// summaryLength bounds the table's summary of a submission, in characters.
const summaryLength = 80

// summaryOf is what the table says of a submission: the subject its
// submitter typed, else its first filled-in field that deliveries carry,
// the submitter's address aside (a column of its own), on one line and cut
// to summaryLength characters. The notification's subject line is not used:
// for most submissions it is the form's own, the same on every row.
func summaryOf(e application.ArchivedEntry) string {
	text := ""
	for _, f := range e.Fields {
		if strings.EqualFold(f.Name, submission.FieldSubject) && strings.TrimSpace(f.Value) != "" {
			text = f.Value
			break
		}
	}
	for _, f := range e.Fields {
		if text != "" {
			break
		}
		if submission.IsForwarded(f.Name) && !strings.EqualFold(f.Name, submission.FieldEmail) {
			text = strings.TrimSpace(f.Value)
		}
	}
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= summaryLength {
		return text
	}
	runes := []rune(text)
	return strings.TrimSpace(string(runes[:summaryLength-1])) + "…"
}

// erasureForm is the Submissions tab's form that erases every submission
// of one address.
type erasureForm struct {
	Email  string
	Errors fieldErrors
}

// submissionsPage is the Submissions tab: the archive, newest first, a page
// at a time.
type submissionsPage struct {
	Form        formHeader
	Filter      submissionFilter
	Statuses    []string
	Submissions []submissionRow
	// Older is the address of the next page; empty on the last.
	Older string
	// ExportCSV and ExportNDJSON download what the filter selects.
	ExportCSV, ExportNDJSON string
	Erase                   erasureForm
}

func (s *Server) showSubmissions(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Submissions")
	if !ok {
		return
	}
	s.drawSubmissions(w, r, v, f, http.StatusOK, erasureForm{}, notices[r.URL.Query().Get("notice")])
}

// drawSubmissions shows the page of the archive the query asks for, through
// ReadSubmissions (so it is recorded as an access), with the erasure form
// as given.
func (s *Server) drawSubmissions(w http.ResponseWriter, r *http.Request, v *visitor, f formHeader, status int,
	erase erasureForm, notice string) {
	query := r.URL.Query()
	page := submissionsPage{Form: f, Statuses: archiveStatuses, Filter: submissionFilterOf(query), Erase: erase}
	base := Prefix + "/forms/" + f.ID + "/submissions"
	page.ExportCSV, page.ExportNDJSON = exportLink(f.ID, page.Filter, "csv"), exportLink(f.ID, page.Filter, "ndjson")
	title := f.Name + ": submissions"
	q, err := page.Filter.list()
	if raw := query.Get("after"); raw != "" && err == nil {
		if q.After, err = portkit.DecodeArchiveCursor(raw); err != nil {
			s.errorPage(w, r, http.StatusBadRequest, "That page of the archive does not exist. Go back to the first page.")
			return
		}
	}
	var found application.SubmissionsPage
	if err == nil {
		q.Caller, q.RequestID, q.FormID = v.Session, requestIDOf(r), f.ID
		found, err = s.app.Queries.ReadSubmissions.List(r.Context(), q)
	}
	if err != nil {
		problems, ok := formProblem(err, submissionFilterFields)
		if !ok {
			s.failed(w, r, err)
			return
		}
		page.Filter.Errors = problems
		s.render(w, r, http.StatusBadRequest, "form-submissions", view{Title: title, Section: "forms", Visitor: v,
			Alert: problems[""], Data: page})
		return
	}
	for _, e := range found.Submissions {
		page.Submissions = append(page.Submissions, submissionRow{ID: e.SubmissionID, Submitter: e.SubmitterEmail,
			Summary: summaryOf(e), Status: e.Status, SubmittedAt: e.AcceptedAt})
	}
	if found.Next != nil {
		older := page.Filter.values()
		older.Set("after", portkit.EncodeArchiveCursor(*found.Next))
		page.Older = base + "?" + older.Encode()
	}
	s.render(w, r, status, "form-submissions", view{Title: title, Section: "forms", Visitor: v, Notice: notice, Data: page})
}

// exportLink is the API's export of what filter selects, in format.
func exportLink(formID string, filter submissionFilter, format string) string {
	q := filter.apiQuery()
	q.Set("format", format)
	return "/v1/forms/" + formID + "/submissions/export?" + q.Encode()
}

// attachmentRow is a file of a submission with where to download it: the
// dashboard's own route for a file that came in the post, the signed link
// of one uploaded in advance while it is valid (Expired after).
type attachmentRow struct {
	Field, Name, Type, Download string
	Size                        int64
	Expires                     time.Time
	Expired                     bool
}

// submissionPage is one archived submission with its files and deliveries.
type submissionPage struct {
	Form        formHeader
	Entry       application.ArchivedEntry
	Attachments []attachmentRow
	Deliveries  []deliveryRow
	// Errors are the erasure form's.
	Errors fieldErrors
}

// submissionIDOf reads the submission id of the path; false for anything but a UUID.
func submissionIDOf(r *http.Request) (string, bool) {
	return portkit.ID(r.PathValue("submissionID"))
}

// loadSubmissionPage is the form of a submission's page, with the
// submission's id; a page that is not found is answered here.
func (s *Server) loadSubmissionPage(w http.ResponseWriter, r *http.Request, v *visitor) (formHeader, string, bool) {
	f, ok := s.loadForm(w, r, v, "Submissions")
	if !ok {
		return f, "", false
	}
	id, ok := submissionIDOf(r)
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "")
	}
	return f, id, ok
}

func (s *Server) showSubmission(w http.ResponseWriter, r *http.Request, v *visitor) {
	s.drawSubmission(w, r, v, http.StatusOK, "", nil)
}

// drawSubmission shows the archived submission of the path, read through
// ReadSubmissions (recorded as an access), with alert above it and the
// erasure form's errors.
func (s *Server) drawSubmission(w http.ResponseWriter, r *http.Request, v *visitor, status int, alert string, errs fieldErrors) {
	f, id, ok := s.loadSubmissionPage(w, r, v)
	if !ok {
		return
	}
	d, err := s.app.Queries.ReadSubmissions.Get(r.Context(), application.GetSubmission{Caller: v.Session,
		RequestID: requestIDOf(r), FormID: f.ID, SubmissionID: id})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	page := submissionPage{Form: f, Entry: d.ArchivedEntry, Errors: errs}
	for i, a := range d.Attachments {
		row := attachmentRow{Field: a.Field, Name: a.Name, Type: a.Type, Size: a.Size, Expires: a.Expires}
		switch {
		case !a.Uploaded:
			row.Download = Prefix + "/forms/" + f.ID + "/submissions/" + id + "/attachments/" + strconv.Itoa(i)
		case a.Link != "":
			row.Download = a.Link
		default:
			row.Expired = true
		}
		page.Attachments = append(page.Attachments, row)
	}
	for _, del := range d.Deliveries {
		page.Deliveries = append(page.Deliveries, rowOf(del))
	}
	s.render(w, r, status, "form-submission", view{Title: f.Name + ": submission", Section: "forms", Visitor: v,
		Alert: alert, Data: page})
}

// downloadAttachment serves a file that came in the post of an archived
// submission, read through ReadSubmissions (recorded as an access) with the
// dashboard's session.
func (s *Server) downloadAttachment(w http.ResponseWriter, r *http.Request, v *visitor) {
	formID, ok := formIDOf(r)
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	id, ok := submissionIDOf(r)
	index, err := strconv.Atoi(r.PathValue("index"))
	if !ok || err != nil || index < 0 {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	a, err := s.app.Queries.ReadSubmissions.Attachment(r.Context(), application.ReadSubmissionAttachment{Caller: v.Session,
		RequestID: requestIDOf(r), FormID: formID, SubmissionID: id, Index: index})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	w.Header().Set("Content-Type", a.ContentType)
	w.Header().Set("Content-Disposition", a.Disposition)
	w.Header().Set("Cache-Control", "private, no-store")
	_, _ = w.Write(a.Content)
}
