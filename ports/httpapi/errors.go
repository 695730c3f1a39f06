package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/submission"
	"github.com/formd/formd/ports/portkit"
)

// errorBody is the spec's ErrorResponse.
type errorBody struct {
	Success   bool                    `json:"success"`
	Message   string                  `json:"message"`
	RequestID string                  `json:"requestId,omitempty"`
	Errors    []submission.FieldError `json:"errors,omitempty"`
	Body      *responseBody           `json:"body,omitempty"`
}

type responseBody struct {
	Data    map[string]any `json:"data"`
	Message string         `json:"message"`
}

func abortJSON(c *gin.Context, status int, body errorBody) {
	c.AbortWithStatusJSON(status, body)
}

func (s *Server) fail(c *gin.Context, status int, message string) {
	abortJSON(c, status, errorBody{Message: message, RequestID: requestIDOf(c)})
}

func (s *Server) internalError(c *gin.Context) {
	s.fail(c, http.StatusInternalServerError, application.MsgInternal)
}

// statusOfKind is the status each kind of failure (application.Classify)
// answers with. A forbidden call is 403 only on a control-plane route whose
// errors the spec leaves open (forbiddenStatus).
var statusOfKind = map[application.ErrorKind]int{
	application.KindInternal:         http.StatusInternalServerError,
	application.KindInvalid:          http.StatusBadRequest,
	application.KindForbidden:        http.StatusForbidden,
	application.KindPermissionDenied: http.StatusForbidden,
	application.KindTooManyRequests:  http.StatusTooManyRequests,
	application.KindNotFound:         http.StatusNotFound,
	application.KindUnauthenticated:  http.StatusUnauthorized,
	application.KindRefused:          http.StatusBadRequest,
	application.KindRefusedUntil:     http.StatusTooManyRequests,
	application.KindUnavailable:      http.StatusInternalServerError,
}

// specListedRoutes are the control-plane routes whose errors the spec's
// table lists: a refusal there answers with a status it lists (400).
var specListedRoutes = map[string]bool{
	"GET /v1/forms":  true,
	"POST /v1/forms": true,
	"GET /v1/forms/:formId/recipient-verification":   true,
	"POST /v1/forms/:formId/recipient-verifications": true,
	"PATCH /v1/forms/:formId/integrations/:type":     true,
	"POST /v1/forms/:formId/integrations/:type/test": true,
}

// statusOf is the status of err on route (method and path pattern), with
// its kind and the message the caller may see. Unknown errors are 500s
// whose detail stays in the log.
func statusOf(err error, route string) (int, application.Failure) {
	f := application.Classify(err)
	status := statusOfKind[f.Kind]
	if f.Kind == application.KindForbidden {
		status = forbiddenStatus(route)
	}
	return status, f
}

// forbiddenStatus is 403 on the control plane, where the spec leaves a
// route's other errors open; the public routes, and the control-plane
// routes the spec lists the errors of, answer 400.
func forbiddenStatus(route string) int {
	_, path, _ := strings.Cut(route, " ")
	if strings.HasPrefix(path, "/v1/") && !specListedRoutes[route] {
		return http.StatusForbidden
	}
	return http.StatusBadRequest
}

// routeOf is c's route as statusOf knows it: method and path pattern.
func routeOf(c *gin.Context) string { return c.Request.Method + " " + c.FullPath() }

// respondError writes err as an ErrorResponse.
func (s *Server) respondError(c *gin.Context, err error) {
	err = s.config.Database.Unavailable(err)
	if errors.Is(err, application.ErrNothingCheckpointed) {
		// Not a failure: the next checkpoint, within a minute, covers it.
		retryAfter(c, portkit.AuditBundleRetryAfter)
		s.fail(c, http.StatusServiceUnavailable, application.ErrNothingCheckpointed.Error())
		return
	}
	status, f := statusOf(err, routeOf(c))
	if f.Kind == application.KindUnavailable {
		s.log.Warn("database unavailable", "requestId", requestIDOf(c), "route", c.FullPath(), "err", err)
		s.config.Database.Lost()
		s.answerUnavailable(c)
		return
	}
	if status == http.StatusInternalServerError {
		s.log.Error("request failed", "requestId", requestIDOf(c), "route", c.FullPath(), "err", err)
		s.internalError(c)
		return
	}
	if wait, ok := retryAfterOf(err); ok {
		retryAfter(c, wait)
	}
	s.fail(c, status, f.Message)
}

// retryAfterOf is how long the caller should wait before trying again
// (Retry-After), for a rate limit or a refusal that lasts until a time.
func retryAfterOf(err error) (time.Duration, bool) {
	var tooMany *domain.TooManyRequestsError
	var rejected *application.SubmissionRejected
	switch {
	case errors.As(err, &tooMany):
		return tooMany.RetryAfter, true
	case errors.As(err, &rejected) && !rejected.Until.IsZero():
		return time.Until(rejected.Until), true
	}
	return 0, false
}

// decodeJSON reads a JSON object body into v, answering 400/413 itself on
// failure; it reports whether the handler may go on.
func (s *Server) decodeJSON(c *gin.Context, v any) bool {
	ct := c.ContentType()
	if ct != "" && ct != "application/json" && !strings.HasSuffix(ct, "+json") {
		s.fail(c, http.StatusBadRequest, "Content-Type must be application/json.")
		return false
	}
	dec := json.NewDecoder(c.Request.Body)
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("trailing data")
	}
	if err == nil {
		if _, e := dec.Token(); e != io.EOF {
			err = errors.New("trailing data after the JSON object")
		}
	}
	if err != nil {
		s.fail(c, statusOfDecode(err), describeDecodeError(err))
		return false
	}
	return true
}

func statusOfDecode(err error) int {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}

func describeDecodeError(err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return "Request body is too large."
	case errors.As(err, &typeErr):
		if typeErr.Field != "" {
			return fmt.Sprintf("Field %s must be of type %s.", typeErr.Field, jsonTypeName(typeErr.Type.Kind().String()))
		}
		return "Request body must be a JSON object."
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return "Request body is not valid JSON."
	case errors.Is(err, io.EOF):
		return "Request body is empty; a JSON object is required."
	}
	return "Request body is not valid JSON: " + err.Error()
}

func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "slice", "array":
		return "array"
	case "struct", "map", "ptr":
		return "object"
	case "int", "int64", "int32", "float64", "uint", "uint64":
		return "number"
	}
	return kind
}
