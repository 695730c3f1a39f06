package mcp

import (
	"context"
	"errors"
	"net/http"

	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/portkit"
)

// toolError turns a use case's refusal into the error the SDK returns as a
// tool error (isError, with the text as its content): the same message /v1
// gives for it. A failure of formd's own is logged and answered with the
// API's words and the request id, never its detail.
func (s *Server) toolError(ctx context.Context, tool string, err error) error {
	err = s.config.Database.Unavailable(err)
	if errors.Is(err, application.ErrUnavailable) {
		s.log.Warn("database unavailable", "requestId", requestIDOf(ctx), "route", Path, "tool", tool, "err", err)
		s.config.Database.Lost()
		s.config.Refusals.RefusedUnavailable(application.SurfaceMCP)
	}
	if msg, ok := application.PublicMessage(err); ok {
		return errors.New(msg)
	}
	id := requestIDOf(ctx)
	s.log.Error("tool failed", "requestId", id, "route", Path, "tool", tool, "err", err)
	return errors.New(application.MsgInternal + " requestId: " + id)
}

// unavailable answers a request to /mcp while the database is down, before
// authentication asks it: the JSON API's 500 that says to retry, with
// Retry-After.
func (s *Server) unavailable(w http.ResponseWriter, requestID string) {
	s.config.Refusals.RefusedUnavailable(application.SurfaceMCP)
	portkit.SetRetryAfter(w.Header(), application.UnavailableRetryAfter)
	writeError(w, http.StatusInternalServerError, application.MsgUnavailable, requestID)
}
