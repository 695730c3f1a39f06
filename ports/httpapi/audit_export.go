package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/portkit"
)

// exportAudit is GET /v1/forms/{formId}/audit/export (scope forms:read):
// the auditor's bundle of the form, exactly as the application wrote it.
func (s *Server) exportAudit(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	bundle, err := s.app.Queries.ExportAudit.Handle(c.Request.Context(), application.ExportAudit{Caller: sessionOf(c), FormID: id})
	if err != nil {
		s.respondError(c, err)
		return
	}
	portkit.SetAuditBundleHeaders(c.Writer.Header(), id)
	c.Status(http.StatusOK)
	_, _ = c.Writer.Write(bundle)
}
