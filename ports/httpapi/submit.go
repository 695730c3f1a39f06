package httpapi

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
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
		s.submitFailed(c, jsClient, http.StatusBadRequest, "Idempotency-Key must be 1 to 255 printable ASCII characters.", nil)
		return
	}
	if c.Request.ContentLength > MaxSubmissionBytes {
		s.submitFailed(c, jsClient, http.StatusRequestEntityTooLarge, "Submission is too large.", nil)
		return
	}
	fields, files, err := decodeSubmission(c.Request)
	if err != nil {
		var de *decodeError
		if errors.As(err, &de) {
			s.submitFailed(c, jsClient, de.status, de.message, nil)
			return
		}
		s.respondError(c, err)
		return
	}
	out, err := s.app.Commands.Submit.Handle(c.Request.Context(), application.Submit{
		PathAccessKey: key, Fields: fields, Files: files,
		Origin: c.GetHeader("Origin"), Referer: c.GetHeader("Referer"), RemoteIP: c.ClientIP(),
		DryRun: dryRunRequested(c.Request), JSONClient: jsClient, IdempotencyKey: idem, RequestID: requestIDOf(c),
	})
	var rejected *application.SubmissionRejected
	switch {
	case errors.As(err, &rejected):
		s.submitFailed(c, jsClient, http.StatusBadRequest, rejected.Response.Message, &rejected.Response)
	case err != nil:
		status, msg := statusOf(err)
		if status == http.StatusInternalServerError {
			s.respondError(c, err)
			return
		}
		s.submitFailed(c, jsClient, status, msg, nil)
	case jsClient:
		c.JSON(http.StatusOK, out.Response)
	default:
		target := out.Redirect
		if target == "" {
			target = SuccessPagePath
		}
		c.Redirect(http.StatusSeeOther, target)
	}
}

// submitFailed answers a refused submission: JSON for JavaScript clients, a
// 303 to the hosted error page for plain HTML posts.
func (s *Server) submitFailed(c *gin.Context, jsClient bool, status int, message string, resp *application.SubmissionResponse) {
	if jsClient {
		if resp != nil {
			resp.RequestID = requestIDOf(c)
			c.AbortWithStatusJSON(status, resp)
			return
		}
		s.fail(c, status, message)
		return
	}
	if resp != nil && len(resp.Errors) > 0 {
		parts := make([]string, len(resp.Errors))
		for i, e := range resp.Errors {
			parts[i] = e.Message
		}
		message += " " + strings.Join(parts, "; ") + "."
	}
	q := url.Values{"reason": {message}, "requestId": {requestIDOf(c)}}
	if back := c.GetHeader("Referer"); back != "" {
		q.Set("back", back)
	}
	c.Redirect(http.StatusSeeOther, ErrorPagePath+"?"+q.Encode())
	c.Abort()
}

// errorPage is the hosted failure page of plain HTML posts. It shows the
// reason as text (escaped) and a way back to the form.
func (s *Server) errorPage(c *gin.Context) {
	reason := strings.ToValidUTF8(c.Query("reason"), "\uFFFD")
	if r := []rune(reason); len(r) > 1000 {
		reason = string(r[:1000]) + "…"
	}
	if reason == "" {
		reason = "The form could not be sent."
	}
	s.page(c, http.StatusOK, statusPageData{Title: "The form was not sent", Message: reason, RequestID: c.Query("requestId"),
		BackLink: backLink(c.Query("back"))})
}

// backLink keeps only absolute http(s) addresses as a way back to the form.
func backLink(raw string) string {
	if u, err := url.Parse(raw); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
		return u.String()
	}
	return ""
}

// successPage is the hosted success page of plain HTML posts.
func (s *Server) successPage(c *gin.Context) {
	s.page(c, http.StatusOK, statusPageData{Title: "Thank you!", Message: "Your submission was received.",
		BackLink: backLink(c.GetHeader("Referer"))})
}
