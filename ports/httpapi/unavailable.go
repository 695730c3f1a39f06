package httpapi

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
)

// reasonUnavailable is the error page's reason for a plain HTML post made
// while the database could not be reached.
const reasonUnavailable = "unavailable"

// needsDatabase answers a request that needs the database with the outage
// error at once while the database is down, so it does not queue behind
// connection attempts that cannot succeed.
func (s *Server) needsDatabase(c *gin.Context) {
	if s.config.Database.Available() {
		c.Next()
		return
	}
	s.answerUnavailable(c)
}

// answerUnavailable is the one outage answer of the JSON API: the spec's
// 500 with an ErrorResponse that says to retry, and Retry-After saying
// the outage is passing. A plain HTML post gets the hosted error page.
func (s *Server) answerUnavailable(c *gin.Context) {
	retryAfter(c, application.UnavailableRetryAfter)
	if !isSubmitRoute(c) {
		s.config.Refusals.RefusedUnavailable(application.SurfaceAPI)
		s.fail(c, http.StatusInternalServerError, application.MsgUnavailable)
		return
	}
	s.config.Refusals.RefusedUnavailable(application.SurfaceSubmit)
	s.submitFailed(c, isJavaScriptClient(c.Request), http.StatusInternalServerError, reasonUnavailable,
		application.MsgUnavailableSubmit, nil)
}

// isSubmitRoute reports a public submission, whose outage answer advises
// retrying with the same Idempotency-Key.
func isSubmitRoute(c *gin.Context) bool {
	path := c.FullPath()
	return path == "/submit" || strings.HasPrefix(path, "/submit/")
}
