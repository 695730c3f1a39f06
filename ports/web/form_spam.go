package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
	"github.com/formd/formd/ports/portkit"
)

// heldRow is one held submission as the Spam tab's table shows it.
type heldRow struct {
	ID, Submitter, Subject, Score, Excerpt string
	Reasons                                []string
	HeldAt                                 time.Time
}

// spamPage is the Spam tab: the form's Spam folder, newest first, a page
// at a time.
type spamPage struct {
	Form formHeader
	// Holding says whether the form is in hold mode; out of it, nothing new
	// arrives here, though what was held before stays until reviewed.
	Holding bool
	// Total counts every held submission, not only this page's.
	Total       int
	Submissions []heldRow
	// Older is the address of the next page; empty on the last.
	Older string
	// Verdicts are the review buttons' values.
	Verdicts verdicts
}

// verdicts are the values of the review buttons, as the application
// names them.
type verdicts struct{ NotSpam, Spam, Deleted string }

var reviewVerdicts = verdicts{NotSpam: form.ReviewedNotSpam, Spam: form.ReviewedSpam, Deleted: form.ReviewedDeleted}

// excerptLength bounds the table's excerpt of a held message, in characters.
const excerptLength = 120

// fieldValue is the first non-blank value of the field named name,
// whatever its case.
func fieldValue(fields []submission.Field, name string) string {
	for _, f := range fields {
		if strings.EqualFold(f.Name, name) && strings.TrimSpace(f.Value) != "" {
			return f.Value
		}
	}
	return ""
}

// excerpt is text on one line, cut to n characters.
func excerpt(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	runes := []rune(text)
	return strings.TrimSpace(string(runes[:n-1])) + "…"
}

// heldSubject is the subject the submitter typed, else the notification's
// subject line it would have been sent with.
func heldSubject(e application.HeldEntry) string {
	if s := fieldValue(e.Fields, submission.FieldSubject); s != "" {
		return excerpt(s, summaryLength)
	}
	return e.Subject
}

// scoreText writes a classifier's score with one decimal; a hold by the
// rules alone has none.
func scoreText(score float64) string {
	if score == 0 {
		return ""
	}
	return strconv.FormatFloat(score, 'f', 1, 64)
}

func heldRowOf(e application.HeldEntry) heldRow {
	return heldRow{ID: e.SubmissionID, Submitter: e.SubmitterEmail, Subject: heldSubject(e), Score: scoreText(e.Score),
		Reasons: e.Reasons, Excerpt: excerpt(fieldValue(e.Fields, "message"), excerptLength), HeldAt: e.HeldAt}
}

// showSpam shows the page of the Spam folder the query asks for, read
// through SpamFolder.List (so it is recorded as an access).
func (s *Server) showSpam(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Spam")
	if !ok {
		return
	}
	q := application.ListHeld{Caller: v.Session, RequestID: requestIDOf(r), FormID: f.ID}
	if raw := r.URL.Query().Get("after"); raw != "" {
		after, err := portkit.DecodeArchiveCursor(raw)
		if err != nil {
			s.errorPage(w, r, http.StatusBadRequest, "That page of the Spam folder does not exist. Go back to the first page.")
			return
		}
		q.After = after
	}
	found, err := s.app.Commands.SpamFolder.List(r.Context(), q)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	page := spamPage{Form: f, Holding: f.Settings.Spam.Mode == form.SpamHold, Total: found.Total, Verdicts: reviewVerdicts}
	for _, e := range found.Submissions {
		page.Submissions = append(page.Submissions, heldRowOf(e))
	}
	if found.Next != nil {
		page.Older = Prefix + "/forms/" + f.ID + "/spam?after=" + portkit.EncodeArchiveCursor(*found.Next)
	}
	s.render(w, r, http.StatusOK, "form-spam", view{Title: f.Name + ": spam", Section: "forms", Visitor: v,
		Notice: notices[r.URL.Query().Get("notice")], Data: page})
}

// heldPage is one held submission with every field it came with.
type heldPage struct {
	Form     formHeader
	Entry    application.HeldEntry
	Score    string
	Verdicts verdicts
}

// showHeld shows the held submission of the path, read through
// SpamFolder.Get (recorded as an access).
func (s *Server) showHeld(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Spam")
	if !ok {
		return
	}
	id, ok := submissionIDOf(r)
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	e, err := s.app.Commands.SpamFolder.Get(r.Context(), v.Session, requestIDOf(r), f.ID, id)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "form-spam-submission", view{Title: f.Name + ": held submission", Section: "forms", Visitor: v,
		Data: heldPage{Form: f, Entry: e, Score: scoreText(e.Score), Verdicts: reviewVerdicts}})
}
