package web

import (
	"fmt"
	"net/http"

	"github.com/formd/formd/application"
)

// confirmField is the checkbox an erasure must carry: erasing cannot be
// undone, so the server asks for it, whether or not the page has script.
const confirmField = "confirm"

// unconfirmed is what the page says next to an unticked confirmation.
const unconfirmed = "Tick the box to confirm: erased submissions cannot be restored."

// eraseSubmission erases one archived submission through the same command
// as DELETE /v1/forms/{formId}/submissions/{submissionId}; a refusal
// (deliveries still in progress) is shown on the submission's page.
func (s *Server) eraseSubmission(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, id, ok := s.loadSubmissionPage(w, r, v)
	if !ok {
		return
	}
	if r.PostFormValue(confirmField) == "" {
		s.drawSubmission(w, r, v, http.StatusBadRequest, "", fieldErrors{confirmField: unconfirmed})
		return
	}
	_, err := s.app.Commands.EraseSubmissions.EraseOne(r.Context(), application.EraseSubmission{Caller: v.Session,
		RequestID: requestIDOf(r), FormID: f.ID, SubmissionID: id})
	if err != nil {
		if problems, ok := formProblem(err, nil); ok {
			s.drawSubmission(w, r, v, http.StatusBadRequest, problems[""], nil)
			return
		}
		s.failed(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/forms/"+f.ID+"/submissions?notice=submission-erased", http.StatusSeeOther)
}

// eraseSubmitter erases every archived submission of one address through
// the same command as POST /v1/forms/{formId}/submissions/erase, and shows
// the tab again saying how many went.
func (s *Server) eraseSubmitter(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Submissions")
	if !ok {
		return
	}
	form := erasureForm{Email: r.PostFormValue("erase-email")}
	if r.PostFormValue(confirmField) == "" {
		form.Errors = fieldErrors{confirmField: unconfirmed}
		s.drawSubmissions(w, r, v, f, http.StatusBadRequest, form, "")
		return
	}
	out, err := s.app.Commands.EraseSubmissions.EraseByEmail(r.Context(), application.EraseSubmitter{Caller: v.Session,
		RequestID: requestIDOf(r), FormID: f.ID, Email: form.Email})
	if err != nil {
		problems, ok := formProblem(err, map[string]string{"email": "email"})
		if !ok {
			s.failed(w, r, err)
			return
		}
		form.Errors = problems
		s.drawSubmissions(w, r, v, f, http.StatusBadRequest, form, "")
		return
	}
	s.drawSubmissions(w, r, v, f, http.StatusOK, erasureForm{}, erasedNotice(out))
}

// erasedNotice says what an erasure by email did.
func erasedNotice(e application.Erasure) string {
	noun := "submissions"
	if e.Erased == 1 {
		noun = "submission"
	}
	msg := fmt.Sprintf("Erased %d %s", e.Erased, noun)
	if e.Pending > 0 {
		msg += fmt.Sprintf(" (%d still being delivered: erase them again once their deliveries are final)", e.Pending)
	}
	return msg + "."
}
