package httpapi

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/portkit"
)

// heldPageJSON is a page of the Spam folder; NextCursor is absent on the
// last. Total counts every held submission of the form.
type heldPageJSON struct {
	Submissions []portkit.HeldSubmission `json:"submissions"`
	Total       int                      `json:"total"`
	NextCursor  string                   `json:"nextCursor,omitempty"`
}

// listHeld is GET /v1/forms/{formId}/spam (scope submissions:read).
func (s *Server) listHeld(c *gin.Context) {
	formID, ok := s.formID(c)
	if !ok {
		return
	}
	q := application.ListHeld{Caller: sessionOf(c), RequestID: requestIDOf(c), FormID: formID}
	if raw, set := c.GetQuery("limit"); set {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 {
			s.respondError(c, domain.Invalid("limit", "limit must be between 1 and %d", application.MaxHeldPage))
			return
		}
		q.Limit = n
	}
	if raw := c.Query("cursor"); raw != "" {
		after, err := portkit.DecodeArchiveCursor(raw)
		if err != nil {
			s.respondError(c, err)
			return
		}
		q.After = after
	}
	page, err := s.app.Commands.SpamFolder.List(c.Request.Context(), q)
	if err != nil {
		s.respondError(c, err)
		return
	}
	out := heldPageJSON{Submissions: make([]portkit.HeldSubmission, len(page.Submissions)), Total: page.Total}
	for i, e := range page.Submissions {
		out.Submissions[i] = portkit.PresentHeld(e)
	}
	if page.Next != nil {
		out.NextCursor = portkit.EncodeArchiveCursor(*page.Next)
	}
	c.JSON(http.StatusOK, out)
}

// getHeld is GET /v1/forms/{formId}/spam/{submissionId} (scope
// submissions:read).
func (s *Server) getHeld(c *gin.Context) {
	formID, submissionID, ok := s.submissionIDs(c)
	if !ok {
		return
	}
	e, err := s.app.Commands.SpamFolder.Get(c.Request.Context(), sessionOf(c), requestIDOf(c), formID, submissionID)
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, portkit.PresentHeld(e))
}

// reviewHeld answers the three reviews of a held submission (scope
// submissions:delete): POST …/spam/{submissionId}/not-spam, POST
// …/spam/{submissionId}/spam and DELETE …/spam/{submissionId}.
func (s *Server) reviewHeld(verdict string) gin.HandlerFunc {
	return func(c *gin.Context) {
		formID, submissionID, ok := s.submissionIDs(c)
		if !ok {
			return
		}
		r, err := s.app.Commands.SpamFolder.Review(c.Request.Context(), application.ReviewHeld{Caller: sessionOf(c), RequestID: requestIDOf(c),
			FormID: formID, SubmissionID: submissionID, Verdict: verdict})
		if err != nil {
			s.respondError(c, err)
			return
		}
		c.JSON(http.StatusOK, portkit.PresentReview(r))
	}
}

// spamReviews are the review routes under /v1/forms/{formId}/spam/{submissionId}.
var spamReviews = []struct{ method, path, verdict string }{
	{http.MethodPost, "/not-spam", form.ReviewedNotSpam},
	{http.MethodPost, "/spam", form.ReviewedSpam},
	{http.MethodDelete, "", form.ReviewedDeleted},
}
