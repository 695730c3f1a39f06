package httpapi

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/ports/portkit"
)

// submissionPageJSON is a page of the archive; NextCursor is absent on the
// last.
type submissionPageJSON struct {
	Submissions []portkit.Submission `json:"submissions"`
	NextCursor  string               `json:"nextCursor,omitempty"`
}

// listSubmissions is GET /v1/forms/{formId}/submissions (scope
// submissions:read).
func (s *Server) listSubmissions(c *gin.Context) {
	formID, ok := s.formID(c)
	if !ok {
		return
	}
	q, err := listSubmissionsQuery(c)
	if err != nil {
		s.respondError(c, err)
		return
	}
	q.Caller, q.RequestID, q.FormID = sessionOf(c), requestIDOf(c), formID
	page, err := s.app.Queries.ReadSubmissions.List(c.Request.Context(), q)
	if err != nil {
		s.respondError(c, err)
		return
	}
	out := submissionPageJSON{Submissions: make([]portkit.Submission, len(page.Submissions))}
	for i, e := range page.Submissions {
		out.Submissions[i] = portkit.PresentSubmission(formID, e)
	}
	if page.Next != nil {
		out.NextCursor = portkit.EncodeArchiveCursor(*page.Next)
	}
	c.JSON(http.StatusOK, out)
}

// listSubmissionsQuery reads a list's query parameters.
func listSubmissionsQuery(c *gin.Context) (application.ListSubmissions, error) {
	q, err := archiveFilterQuery(c)
	if err != nil {
		return q, err
	}
	if raw, set := c.GetQuery("limit"); set {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 {
			return q, domain.Invalid("limit", "limit must be between 1 and %d", application.MaxSubmissionPage)
		}
		q.Limit = n
	}
	if raw := c.Query("cursor"); raw != "" {
		if q.After, err = portkit.DecodeArchiveCursor(raw); err != nil {
			return q, err
		}
	}
	return q, nil
}

// archiveFilterQuery reads the archive's filters a list and an export
// share: from, to, status, email, field and value.
func archiveFilterQuery(c *gin.Context) (application.ListSubmissions, error) {
	q := application.ListSubmissions{Status: c.Query("status"), Email: c.Query("email"), Field: c.Query("field"), Value: c.Query("value")}
	var err error
	if q.From, err = portkit.ArchiveTime("from", c.Query("from")); err != nil {
		return q, err
	}
	q.To, err = portkit.ArchiveTime("to", c.Query("to"))
	return q, err
}

// getSubmission is GET /v1/forms/{formId}/submissions/{submissionId}
// (scope submissions:read).
func (s *Server) getSubmission(c *gin.Context) {
	formID, submissionID, ok := s.submissionIDs(c)
	if !ok {
		return
	}
	d, err := s.app.Queries.ReadSubmissions.Get(c.Request.Context(), application.GetSubmission{
		Caller: sessionOf(c), RequestID: requestIDOf(c), FormID: formID, SubmissionID: submissionID})
	if err != nil {
		s.respondError(c, err)
		return
	}
	deliveries := make([]portkit.Delivery, len(d.Deliveries))
	for i, r := range d.Deliveries {
		deliveries[i] = portkit.PresentDelivery(r)
	}
	c.JSON(http.StatusOK, gin.H{"submission": portkit.PresentSubmission(formID, d.ArchivedEntry), "deliveries": deliveries})
}

// getSubmissionAttachment is GET
// /v1/forms/{formId}/submissions/{submissionId}/attachments/{index} (scope
// submissions:read): a file that came in the post, as a download.
func (s *Server) getSubmissionAttachment(c *gin.Context) {
	formID, submissionID, ok := s.submissionIDs(c)
	if !ok {
		return
	}
	index, err := strconv.Atoi(c.Param("index"))
	if err != nil || index < 0 {
		s.respondError(c, domain.ErrNotFound)
		return
	}
	a, err := s.app.Queries.ReadSubmissions.Attachment(c.Request.Context(), application.ReadSubmissionAttachment{
		Caller: sessionOf(c), RequestID: requestIDOf(c), FormID: formID, SubmissionID: submissionID, Index: index})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.Header("Content-Disposition", a.Disposition)
	c.Header("X-Content-Type-Options", "nosniff")
	c.Header("Cache-Control", "private, no-store")
	c.Data(http.StatusOK, a.ContentType, a.Content)
}

// submissionIDs are the path's form and submission ids; anything but UUIDs
// is not found.
func (s *Server) submissionIDs(c *gin.Context) (formID, submissionID string, ok bool) {
	if formID, ok = s.formID(c); !ok {
		return "", "", false
	}
	submissionID, ok = s.uuidParam(c, "submissionId")
	return formID, submissionID, ok
}
