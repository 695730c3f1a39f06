package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
)

// erasureAnswer is what both erasure routes answer: how many archived
// submissions were shredded, and (by email) how many matching ones were
// left because their deliveries are in progress.
type erasureAnswer struct {
	Erased  int  `json:"erased"`
	Pending *int `json:"pending,omitempty"`
}

// eraseSubmission is DELETE /v1/forms/{formId}/submissions/{submissionId}
// (scope submissions:delete).
func (s *Server) eraseSubmission(c *gin.Context) {
	formID, submissionID, ok := s.submissionIDs(c)
	if !ok {
		return
	}
	out, err := s.app.Commands.EraseSubmissions.EraseOne(c.Request.Context(), application.EraseSubmission{
		Caller: sessionOf(c), RequestID: requestIDOf(c), FormID: formID, SubmissionID: submissionID})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, erasureAnswer{Erased: out.Erased})
}

// eraseSubmitterRequest is the body of POST /v1/forms/{formId}/submissions/erase.
type eraseSubmitterRequest struct {
	Email string `json:"email"`
}

// eraseSubmitter is POST /v1/forms/{formId}/submissions/erase (scope
// submissions:delete): every archived submission of one submitter email.
func (s *Server) eraseSubmitter(c *gin.Context) {
	formID, ok := s.formID(c)
	if !ok {
		return
	}
	var req eraseSubmitterRequest
	if !s.decodeJSON(c, &req) {
		return
	}
	out, err := s.app.Commands.EraseSubmissions.EraseByEmail(c.Request.Context(), application.EraseSubmitter{
		Caller: sessionOf(c), RequestID: requestIDOf(c), FormID: formID, Email: req.Email})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, erasureAnswer{Erased: out.Erased, Pending: &out.Pending})
}
