package httpapi

import (
	"errors"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/submission"
	"github.com/formd/formd/ports/portkit"
)

// Addresses of the hosted pages for plain HTML posts.
const (
	SuccessPagePath = "/submit/success"
	ErrorPagePath   = "/submit/error"
)

// isJavaScriptClient: Accept: application/json, X-Requested-With:
// XMLHttpRequest, Fetch Metadata (Sec-Fetch-Mode: cors) or a JSON body mark a
// client that handles the JSON response itself; anything else is a plain post.
func isJavaScriptClient(r *http.Request) bool {
	return strings.Contains(strings.ToLower(r.Header.Get("Accept")), "application/json") ||
		strings.EqualFold(r.Header.Get("X-Requested-With"), "XMLHttpRequest") ||
		strings.EqualFold(r.Header.Get("Sec-Fetch-Mode"), "cors") ||
		strings.HasPrefix(strings.ToLower(r.Header.Get("Content-Type")), "application/json")
}

// testRequested reads X-Service-Test: "true" (or "1") marks a test
// submission, "false", "0" or no header a live one; anything else is not
// understood.
func testRequested(r *http.Request) (test, ok bool) {
	switch v := strings.TrimSpace(r.Header.Get("X-Service-Test")); {
	case v == "" || v == "0" || strings.EqualFold(v, "false"):
		return false, true
	case v == "1" || strings.EqualFold(v, "true"):
		return true, true
	}
	return false, false
}

// tester is the credential of a test submission (Authorization: Bearer):
// nil when there is none or it is not valid, which the application refuses
// unless the form is in test mode.
func (s *Server) tester(c *gin.Context) (*application.Session, error) {
	scheme, token, ok := strings.Cut(c.GetHeader("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, nil
	}
	session, err := s.app.Queries.Authenticate.Handle(c.Request.Context(), application.Authenticate{Credential: token})
	if errors.Is(err, application.ErrUnauthenticated) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &session, nil
}

func dryRunRequested(r *http.Request) bool {
	v := strings.TrimSpace(r.Header.Get("X-Service-Dry-Run"))
	return v == "1" || strings.EqualFold(v, "true")
}

// validIdempotencyKey: 1 to 255 printable ASCII characters.
func validIdempotencyKey(k string) bool {
	if k == "" || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

func (s *Server) submit(c *gin.Context) {
	jsClient := isJavaScriptClient(c.Request)
	key := c.Param("accessKey")
	idem := c.GetHeader("Idempotency-Key")
	if idem != "" && !validIdempotencyKey(idem) {
		s.submitFailed(c, jsClient, http.StatusBadRequest, reasonIdempotencyKey, "Idempotency-Key must be 1 to 255 printable ASCII characters.", nil)
		return
	}
	if c.Request.ContentLength > maxBodyBytes(c.Request) {
		s.submitFailed(c, jsClient, http.StatusRequestEntityTooLarge, reasonTooLarge, "Submission is too large.", nil)
		return
	}
	test, ok := testRequested(c.Request)
	if !ok {
		s.submitFailed(c, jsClient, http.StatusBadRequest, reasonInvalid, "X-Service-Test must be true or false.", nil)
		return
	}
	var tester *application.Session
	if test {
		var err error
		if tester, err = s.tester(c); err != nil {
			s.respondError(c, err)
			return
		}
	}
	var intake *fileIntake // only a multipart body has files
	if isMultipart(c.Request) {
		intake = s.fileIntake(c, key)
		defer intake.close()
	}
	fields, files, err := decodeSubmission(c.Request, intake)
	if err != nil {
		var de *decodeError
		if errors.As(err, &de) {
			if de.retryAfter > 0 {
				retryAfter(c, de.retryAfter)
			}
			s.submitFailed(c, jsClient, de.status, decodeReason(de.status), de.message, nil)
			return
		}
		s.respondError(c, err)
		return
	}
	out, err := s.app.Commands.Submit.Handle(c.Request.Context(), application.Submit{
		PathAccessKey: key, Fields: fields, Files: files,
		Origin: c.GetHeader("Origin"), Referer: c.GetHeader("Referer"), RemoteIP: c.ClientIP(),
		DryRun: dryRunRequested(c.Request), JSONClient: jsClient, IdempotencyKey: idem, RequestID: requestIDOf(c),
		Test: test, Tester: tester, AcceptLanguage: c.GetHeader("Accept-Language"),
	})
	switch {
	case err != nil:
		s.submitRefused(c, jsClient, err)
	case jsClient:
		c.JSON(http.StatusOK, out.Response)
	default:
		target := out.Redirect
		if target == "" {
			target = successPageAddress(out.FormID)
		}
		c.Redirect(http.StatusSeeOther, target)
	}
}

// submitRefused answers a submission the use case did not accept, by its
// kind (statusOf): a refusal by a gate with the gate's response, the
// others with their message, and what the hosted error page is told.
func (s *Server) submitRefused(c *gin.Context, jsClient bool, err error) {
	status, f := statusOf(err, routeOf(c))
	if status == http.StatusInternalServerError {
		s.respondError(c, err)
		return
	}
	if wait, ok := retryAfterOf(err); ok {
		retryAfter(c, wait)
	}
	if errors.Is(err, application.ErrUnauthenticated) {
		c.Header("WWW-Authenticate", "Bearer")
	}
	reason := reasonInvalid
	var resp *application.SubmissionResponse
	var rejected *application.SubmissionRejected
	switch {
	case errors.As(err, &rejected):
		reason, resp = rejected.Gate, &rejected.Response
	case f.Kind == application.KindTooManyRequests: // the per-form flood limit
		reason = reasonFormFlooded
	case errors.Is(err, application.ErrIdempotencyMismatch):
		reason = reasonIdempotencyKey
	}
	var formID string
	if rejected := (*application.SubmissionRejected)(nil); errors.As(err, &rejected) {
		formID = rejected.FormID
	}
	s.submitFailedFor(c, jsClient, status, reason, f.Message, resp, formID)
}

// fileIntake is what a multipart post to the form with pathKey (or the
// key its body names) may keep of its files, charged to this client's share
// of the process's file budget.
func (s *Server) fileIntake(c *gin.Context, pathKey string) *fileIntake {
	ctx := c.Request.Context()
	return &fileIntake{
		pathKey: pathKey,
		allowance: func(accessKey string) (application.AllowedFiles, error) {
			return s.app.Queries.FileAllowance.Handle(ctx, application.FileAllowance{AccessKey: accessKey})
		},
		hold:    &fileHold{budget: s.files, client: clientKey(c.ClientIP())},
		tempDir: s.config.TempDir,
	}
}

// retryAfter sets Retry-After to wait (portkit.SetRetryAfter: whole
// seconds, at least one).
func retryAfter(c *gin.Context, wait time.Duration) { portkit.SetRetryAfter(c.Writer.Header(), wait) }

// submitFailed answers a refused submission: JSON for JavaScript clients, a
// 303 to the hosted error page for plain HTML posts. The page is told a
// reason code, never free text (see hosted_pages.go).
func (s *Server) submitFailed(c *gin.Context, jsClient bool, status int, reason, message string, resp *application.SubmissionResponse) {
	s.submitFailedFor(c, jsClient, status, reason, message, resp, "")
}

// submitFailedFor is submitFailed for a post routed to the form formID,
// whose own error page a plain post is shown.
func (s *Server) submitFailedFor(c *gin.Context, jsClient bool, status int, reason, message string, resp *application.SubmissionResponse, formID string) {
	if jsClient {
		if resp != nil {
			resp.RequestID = requestIDOf(c)
			c.AbortWithStatusJSON(status, resp)
			return
		}
		s.fail(c, status, message)
		return
	}
	var fieldErrors []submission.FieldError
	if resp != nil {
		fieldErrors = resp.Errors
	}
	c.Redirect(http.StatusSeeOther, errorPageAddress(reason, requestIDOf(c), c.GetHeader("Referer"), formID, fieldErrors))
	c.Abort()
}

// maxBodyBytes is the largest body a submission of r's content type may
// have: multipart bodies carry files.
func maxBodyBytes(r *http.Request) int64 {
	if isMultipart(r) {
		return MaxMultipartBytes
	}
	return MaxSubmissionBytes
}

// isMultipart reports whether r's body is multipart/form-data.
func isMultipart(r *http.Request) bool {
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mediaType == "multipart/form-data"
}
