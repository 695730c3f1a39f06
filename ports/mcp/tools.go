package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/ports/portkit"
)

// addTool registers a tool whose handler runs as the caller of the HTTP
// request; any error it returns becomes a tool error with the API's message
// (toolError), never a protocol error, so the agent reads why and can act.
func addTool[In, Out any](s *Server, srv *sdk.Server, tool *sdk.Tool,
	run func(ctx context.Context, caller application.Session, in In) (Out, error)) {
	sdk.AddTool(srv, tool, func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		var zero Out
		caller, err := callerOf(ctx)
		if err != nil {
			return nil, zero, s.toolError(ctx, tool.Name, err)
		}
		out, err := run(ctx, caller, in)
		if err != nil {
			return nil, zero, s.toolError(ctx, tool.Name, err)
		}
		return nil, out, nil
	})
}

// Annotations of the tools: what a client may assume about a call.
var (
	readOnly = &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	// changes changes formd's state only; sends says it also reaches out
	// (an email or a webhook).
	changes = &sdk.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(false)}
	sends   = &sdk.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(true)}
)

// idOf reads an id argument, lower-cased (ids are case-insensitive);
// anything but a UUID is not found, as an unknown id is on /v1.
func idOf(id string) (string, error) {
	id, ok := portkit.ID(id)
	if !ok {
		return "", domain.ErrNotFound
	}
	return id, nil
}
