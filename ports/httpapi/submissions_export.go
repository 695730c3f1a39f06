package httpapi

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/ports/portkit/export"
)

// exportWriteWindow is how long each batch of an export has to reach the
// client: the server's WriteTimeout bounds a whole response, which a long
// export may outlast while the client keeps reading.
const exportWriteWindow = 60 * time.Second

// exportSubmissions is GET /v1/forms/{formId}/submissions/export (scope
// submissions:read): the archive as a CSV or NDJSON file, streamed. An
// error before the file starts is the usual error response; one after it
// started breaks the connection, so the client sees a failed download and
// never a file cut short that looks whole.
func (s *Server) exportSubmissions(c *gin.Context) {
	formID, ok := s.formID(c)
	if !ok {
		return
	}
	format, err := export.ParseFormat(c.Query("format"))
	if err != nil {
		s.respondError(c, domain.Invalid("format", "format must be csv or ndjson"))
		return
	}
	q, err := archiveFilterQuery(c)
	if err != nil {
		s.respondError(c, err)
		return
	}
	q.Caller, q.RequestID, q.FormID = sessionOf(c), requestIDOf(c), formID
	sink := &exportResponse{c: c, format: format, deadline: http.NewResponseController(c.Writer)}
	_, err = s.app.Queries.ReadSubmissions.Export(c.Request.Context(),
		application.ExportSubmissions{ListSubmissions: q, Format: string(format)}, sink)
	if err == nil {
		return
	}
	if !c.Writer.Written() {
		h := c.Writer.Header()
		h.Del("Content-Type")
		h.Del("Content-Disposition")
		s.respondError(c, err)
		return
	}
	s.log.Warn("export stopped midway", "requestId", requestIDOf(c), "err", err)
	panic(http.ErrAbortHandler)
}

// exportResponse writes an export into the response (application.ExportSink).
type exportResponse struct {
	c        *gin.Context
	format   export.Format
	deadline *http.ResponseController
	enc      export.Encoder
}

// Start implements application.ExportSink: the headers, then the file's
// start (buffered).
func (r *exportResponse) Start(s application.ExportStart) error {
	enc, err := export.New(r.c.Writer, r.format, export.FieldColumns(s.FieldNames))
	if err != nil {
		return err
	}
	r.enc = enc
	h := r.c.Writer.Header()
	h.Set("Content-Type", r.format.ContentType())
	h.Set("Content-Disposition", export.ContentDisposition(s.FormName, s.At, r.format))
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	r.c.Status(http.StatusOK)
	r.extendDeadline()
	return nil
}

// Write implements application.ExportSink.
func (r *exportResponse) Write(e application.ArchivedEntry) error {
	if err := r.enc.Encode(export.RowOf(e)); err != nil {
		return err
	}
	if r.enc.Rows()%application.ExportBatch == 0 {
		r.extendDeadline()
	}
	return nil
}

// Finish implements application.ExportSink: what the encoder still holds
// goes out.
func (r *exportResponse) Finish() error { return r.enc.Flush() }

// extendDeadline gives the next batch exportWriteWindow to be written.
// A writer that cannot set one (a test's recorder) has none to extend; a
// dead connection shows in the next write.
func (r *exportResponse) extendDeadline() {
	_ = r.deadline.SetWriteDeadline(time.Now().Add(exportWriteWindow))
}
