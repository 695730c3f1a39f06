package httpapi

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
)

// The "this was spam" link of a notification mail works as a verification
// link does: GET /spam/{token} shows what it does and a button, and only
// the button's POST marks the submission, so a mail scanner that fetches
// every link marks nothing.

// showSpamLink answers GET /spam/{token}: the confirmation page. It
// changes nothing.
func (s *Server) showSpamLink(c *gin.Context) {
	view, err := s.app.Queries.SpamLink.Handle(c.Request.Context(), application.SpamLinkQuery{Token: c.Param("token")})
	if err != nil {
		s.spamLinkFailed(c, err)
		return
	}
	s.page(c, http.StatusOK, spamLinkPage(view, c.Request.URL.Path))
}

// spamLinkPage asks whether to mark the submission, with a button that
// posts to action (the link's own address).
func spamLinkPage(view application.SpamLinkView, action string) statusPageData {
	return statusPageData{Title: "Mark this submission as spam?",
		Message: "This marks the submission to " + view.FormName + " that the notification mail was about as spam: " +
			"the form's audit trail records it, and the spam filter learns from it while formd still keeps its content.",
		Form: &pageForm{Action: action, Button: "Mark as spam"}}
}

// markSpam answers POST /spam/{token}: the page's button.
func (s *Server) markSpam(c *gin.Context) {
	out, err := s.app.Commands.MarkSpam.Handle(c.Request.Context(), application.MarkSpam{Token: c.Param("token"), RequestID: requestIDOf(c)})
	if err != nil {
		s.spamLinkFailed(c, err)
		return
	}
	s.page(c, http.StatusOK, spamMarkedPage(out))
}

// spamMarkedPage says what a mark did.
func spamMarkedPage(out application.SpamMarked) statusPageData {
	switch {
	case out.AlreadyMarked:
		return statusPageData{Title: "Already marked as spam",
			Message: "This submission was already marked as spam. Nothing else needs to be done."}
	case out.Learned:
		return statusPageData{Title: "Marked as spam",
			Message: "The submission is marked as spam and the spam filter learned from it."}
	case out.Kept:
		return statusPageData{Title: "Marked as spam",
			Message: "The submission is marked as spam in the form's audit trail. The spam filter could not learn from it now " +
				"(none is configured for learning, or it did not answer)."}
	default:
		return statusPageData{Title: "Marked as spam",
			Message: "Your judgement is recorded in the form's audit trail, but formd no longer keeps this submission's content, " +
				"so the spam filter could not learn from it. Turn on the form's submissions archive to let marks from mail teach the filter."}
	}
}

// spamLinkFailed answers a spam link that cannot be shown or followed.
func (s *Server) spamLinkFailed(c *gin.Context, err error) {
	switch {
	case errors.Is(err, application.ErrSpamLinkExpired):
		s.page(c, http.StatusBadRequest, statusPageData{Title: "Link expired",
			Message: "This spam link has expired. You can still review the form's submissions in the dashboard.", RequestID: requestIDOf(c)})
	case errors.Is(err, application.ErrBadSpamLink):
		s.page(c, http.StatusBadRequest, statusPageData{Title: "Link not valid",
			Message: "This spam link is not valid: it was altered or not copied completely, or its form no longer exists.", RequestID: requestIDOf(c)})
	default:
		s.log.Error("spam link", "requestId", requestIDOf(c), "err", err)
		s.page(c, http.StatusInternalServerError, statusPageData{Title: "Something went wrong", Message: "Please try the link again in a moment.", RequestID: requestIDOf(c)})
	}
}
