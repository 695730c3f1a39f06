package httpapi

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// UploadPath reserves upload keys for advanced uploads (GET /upload);
// ObjectsPath is where the built-in store takes uploads (a signed PUT) and
// serves download links (a signed GET).
const (
	UploadPath  = "/upload"
	ObjectsPath = "/upload/objects/:key"
)

// uploadReservation is the answer of GET /upload (docs/uploads.md "Advanced
// uploads"): the key to submit in the file's field, and the one request
// that uploads the file before expiresAt.
type uploadReservation struct {
	Success   bool              `json:"success"`
	Message   string            `json:"message"`
	Key       string            `json:"key"`
	Upload    uploadInstruction `json:"upload"`
	Size      int64             `json:"size"`
	MaxBytes  int64             `json:"maxBytes"`
	ExpiresAt time.Time         `json:"expiresAt"`
}

type uploadInstruction struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// reserveUpload serves GET /upload?access_key=…&name=…&type=…&size=….
func (s *Server) reserveUpload(c *gin.Context) {
	size, err := strconv.ParseInt(c.Query("size"), 10, 64)
	if c.Query("size") == "" {
		size = 0
	} else if err != nil || size < 0 {
		s.fail(c, http.StatusBadRequest, "size must be the file's size in bytes, a whole number.")
		return
	}
	key := c.Query("access_key")
	if key == "" {
		key = c.Query("apikey")
	}
	out, err := s.app.Commands.ReserveUpload.Handle(c.Request.Context(), application.ReserveUpload{AccessKey: key,
		Name: c.Query("name"), Type: c.Query("type"), Size: size, Origin: c.GetHeader("Origin"), Referer: c.GetHeader("Referer"),
		RemoteIP: c.ClientIP()})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, uploadReservation{Success: true, Message: "Upload the file with this request, then submit the key in the file's field.",
		Key: out.Key, Upload: uploadInstruction{Method: out.Upload.Method, URL: out.Upload.URL, Headers: out.Upload.Headers},
		Size: size, MaxBytes: out.MaxBytes, ExpiresAt: out.ExpiresAt.UTC()})
}

// objectLink reads the expiry and signature of a built-in store URL.
func objectLink(c *gin.Context) (time.Time, string, bool) {
	exp, err := strconv.ParseInt(c.Query("expires"), 10, 64)
	if err != nil || c.Query("signature") == "" {
		return time.Time{}, "", false
	}
	return time.Unix(exp, 0), c.Query("signature"), true
}

// receiveObject serves the built-in store's signed PUT: exactly the
// reserved number of bytes, scanned before the answer.
func (s *Server) receiveObject(c *gin.Context) {
	expires, signature, ok := objectLink(c)
	if !ok {
		s.respondError(c, application.ErrLinkInvalid)
		return
	}
	if c.Request.ContentLength > form.MaxFileBytesCeiling {
		s.fail(c, http.StatusRequestEntityTooLarge, fmt.Sprintf("An upload may be at most %d bytes.", form.MaxFileBytesCeiling))
		return
	}
	// What the store holds of the body while it arrives is charged to the
	// client's share of the file budget, as a multipart post's files are.
	hold := &fileHold{budget: s.files, client: clientKey(c.ClientIP())}
	defer hold.release()
	body := &chargedReader{r: http.MaxBytesReader(c.Writer, c.Request.Body, form.MaxFileBytesCeiling), hold: hold}
	out, err := s.app.Commands.ReceiveObject.Handle(c.Request.Context(), application.ReceiveObject{Key: c.Param("key"), Expires: expires,
		Signature: signature, Size: c.Request.ContentLength, Body: body})
	var tooBig *http.MaxBytesError
	var refused *decodeError
	switch {
	case errors.As(err, &tooBig):
		s.fail(c, http.StatusRequestEntityTooLarge, "The upload is larger than was reserved.")
		return
	case errors.As(err, &refused):
		if refused.retryAfter > 0 {
			retryAfter(c, refused.retryAfter)
		}
		s.fail(c, refused.status, refused.message)
		return
	}
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"success": true, "message": "Uploaded and scanned clean: submit the key in the file's field.",
		"key": out.Key, "size": out.Size})
}

// downloadObject serves a built-in store's download link: always as an
// attachment of type application/octet-stream, never rendered or run by
// the browser (nosniff, a sandbox CSP), whatever the file's own type.
func (s *Server) downloadObject(c *gin.Context) {
	expires, signature, ok := objectLink(c)
	if !ok {
		s.respondError(c, application.ErrLinkInvalid)
		return
	}
	out, err := s.app.Queries.DownloadObject.Handle(c.Request.Context(), application.DownloadObject{Key: c.Param("key"), Expires: expires,
		Signature: signature})
	if errors.Is(err, domain.ErrNotFound) {
		s.fail(c, http.StatusNotFound, "This file is no longer available.")
		return
	}
	if err != nil {
		s.respondError(c, err)
		return
	}
	defer out.Body.Close()
	h := c.Writer.Header()
	h.Set("Content-Type", out.ContentType)
	h.Set("Content-Length", strconv.FormatInt(out.Size, 10))
	h.Set("Content-Disposition", out.Disposition)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("Cache-Control", "private, no-store")
	c.Status(http.StatusOK)
	if _, err := io.Copy(c.Writer, out.Body); err != nil {
		s.log.Warn("serving a download was cut short", "requestId", requestIDOf(c), "err", err)
	}
}
