package mcp

import (
	"context"
	"errors"

	"github.com/formd/formd/application"
)

// toolError turns a use case's refusal into the error the SDK returns as a
// tool error (isError, with the text as its content): the same message /v1
// gives for it. A failure of formd's own is logged and answered with the
// API's words and the request id, never its detail.
func (s *Server) toolError(ctx context.Context, tool string, err error) error {
	if msg, ok := application.PublicMessage(err); ok {
		return errors.New(msg)
	}
	id := requestIDOf(ctx)
	s.log.Error("tool failed", "requestId", id, "route", Path, "tool", tool, "err", err)
	return errors.New(application.MsgInternal + " requestId: " + id)
}
