package httpapi

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
)

// testInboxAnswer is GET /v1/forms/{formId}/test-inbox: the latest test
// submissions, newest first, each with what its deliveries would have sent.
type testInboxAnswer struct {
	Success     bool                         `json:"success"`
	Submissions []application.TestSubmission `json:"submissions"`
}

// readTestInbox lists a form's test inbox (scope submissions:test),
// filtered by ?requestId= or ?idempotencyKey=, at most ?limit= (1 to 100,
// 20 by default).
func (s *Server) readTestInbox(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	f := application.TestInboxFilter{RequestID: c.Query("requestId"), IdempotencyKey: c.Query("idempotencyKey")}
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > application.TestInboxCapacity {
			s.fail(c, http.StatusBadRequest, "limit must be a whole number from 1 to 100.")
			return
		}
		f.Limit = n
	}
	list, err := s.app.Queries.ReadTestInbox.Handle(c.Request.Context(), application.ReadTestInbox{Caller: sessionOf(c),
		FormID: id, Filter: f})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, testInboxAnswer{Success: true, Submissions: list})
}

// clearTestInboxAnswer is DELETE /v1/forms/{formId}/test-inbox.
type clearTestInboxAnswer struct {
	Success bool `json:"success"`
	Deleted int  `json:"deleted"`
}

// clearTestInbox shreds a form's test submissions (scope submissions:test).
func (s *Server) clearTestInbox(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	n, err := s.app.Commands.ClearTestInbox.Handle(c.Request.Context(), application.ClearTestInbox{Caller: sessionOf(c),
		FormID: id})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, clearTestInboxAnswer{Success: true, Deleted: n})
}
