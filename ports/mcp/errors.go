package mcp

import (
	"context"
	"errors"
	"strings"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

// toolError turns a use case's refusal into the error the SDK returns as a
// tool error (isError, with the text as its content): the same message /v1
// gives for it. A failure of formd's own is logged and answered with the
// API's words and the request id, never its detail.
func (s *Server) toolError(ctx context.Context, tool string, err error) error {
	if msg, ok := messageOf(err); ok {
		return errors.New(msg)
	}
	id := requestIDOf(ctx)
	s.log.Error("tool failed", "requestId", id, "route", Path, "tool", tool, "err", err)
	return errors.New(internalErrorMessage + " requestId: " + id)
}

// messageOf is the message /v1 answers err with; ok is false for errors
// that are formd's own failures (a 500 there).
func messageOf(err error) (string, bool) {
	var invalid *domain.InvalidInputError
	var forbidden *domain.ForbiddenError
	var tooMany *domain.TooManyRequestsError
	var denied *domain.PermissionDeniedError
	switch {
	case errors.As(err, &invalid):
		if invalid.Field != "" && !strings.Contains(invalid.Message, invalid.Field) {
			return invalid.Field + ": " + invalid.Message, true
		}
		return invalid.Message, true
	case errors.As(err, &forbidden):
		return forbidden.Message, true
	case errors.As(err, &denied):
		return denied.Message, true
	case errors.As(err, &tooMany):
		return tooMany.Message, true
	case errors.Is(err, domain.ErrNotFound):
		return "Not found.", true
	case errors.Is(err, application.ErrUnauthenticated):
		return unauthenticatedMessage, true
	}
	return "", false
}
