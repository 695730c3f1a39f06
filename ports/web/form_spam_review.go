package web

import (
	"net/http"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
)

// verdictField is the review buttons' name; each button carries its
// verdict as its value.
const verdictField = "verdict"

// reviewNotice is the notice the Spam tab shows after a review: what
// happened to the submission, and whether the classifier learned from it.
func reviewNotice(out application.Review) string {
	switch {
	case out.Verdict == form.ReviewedNotSpam && out.Learned:
		return "spam-released"
	case out.Verdict == form.ReviewedNotSpam:
		return "spam-released-unlearned"
	case out.Verdict == form.ReviewedSpam && out.Learned:
		return "spam-shredded"
	case out.Verdict == form.ReviewedSpam:
		return "spam-shredded-unlearned"
	default:
		return "spam-deleted"
	}
}

// reviewHeld carries out the owner's judgement of a held submission
// through the same command as the API's not-spam, spam and delete routes,
// and goes back to the Spam tab saying what it did.
func (s *Server) reviewHeld(w http.ResponseWriter, r *http.Request, v *visitor) {
	formID, ok := formIDOf(r)
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	id, ok := submissionIDOf(r)
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	out, err := s.app.Commands.SpamFolder.Review(r.Context(), application.ReviewHeld{Caller: v.Session, RequestID: requestIDOf(r),
		FormID: formID, SubmissionID: id, Verdict: r.PostFormValue(verdictField)})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/forms/"+formID+"/spam?notice="+reviewNotice(out), http.StatusSeeOther)
}
