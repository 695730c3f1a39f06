package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/submission"
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

// statusOf maps application and domain errors to a status and a message the
// caller may see. Unknown errors are 500s whose detail stays in the log.
func statusOf(err error) (int, string) {
	msg, ok := application.PublicMessage(err)
	if !ok {
		return http.StatusInternalServerError, ""
	}
	var forbidden *domain.ForbiddenError
	var tooMany *domain.TooManyRequestsError
	var denied *domain.PermissionDeniedError
	switch {
	case errors.As(err, &forbidden):
		return http.StatusBadRequest, msg
	case errors.As(err, &denied):
		return http.StatusForbidden, msg
	case errors.As(err, &tooMany):
		return http.StatusTooManyRequests, msg
	case errors.Is(err, domain.ErrNotFound):
		return http.StatusNotFound, msg
	case errors.Is(err, application.ErrUnauthenticated):
		return http.StatusUnauthorized, msg
	}
	return http.StatusBadRequest, msg // a broken input
}

// respondError writes err as an ErrorResponse.
func (s *Server) respondError(c *gin.Context, err error) {
	status, msg := statusOf(err)
	if status == http.StatusInternalServerError {
		s.log.Error("request failed", "requestId", requestIDOf(c), "route", c.FullPath(), "err", err)
		s.internalError(c)
		return
	}
	var tooMany *domain.TooManyRequestsError
	if errors.As(err, &tooMany) {
		c.Header("Retry-After", strconv.Itoa(max(1, int(math.Ceil(tooMany.RetryAfter.Seconds())))))
	}
	s.fail(c, status, msg)
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
