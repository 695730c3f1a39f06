package application

import "context"

// ListWorkspaceTokens is GET /v1/workspaces/{workspaceId}/tokens.
type ListWorkspaceTokens struct {
	Caller      Session
	WorkspaceID string
}

// ListWorkspaceTokensHandler lists a workspace's API tokens, never the tokens
// themselves.
type ListWorkspaceTokensHandler struct {
	read   WorkspaceReader
	tokens WorkspaceTokens
}

// NewListWorkspaceTokensHandler builds the handler; every dependency is required.
func NewListWorkspaceTokensHandler(read WorkspaceReader, tokens WorkspaceTokens) *ListWorkspaceTokensHandler {
	if read == nil || tokens == nil {
		panic("application: nil dependency of ListWorkspaceTokensHandler")
	}
	return &ListWorkspaceTokensHandler{read: read, tokens: tokens}
}

// Handle lists the tokens of a workspace of the caller's account, oldest
// first; expired ones too, until they are deleted. Only a session may.
func (h *ListWorkspaceTokensHandler) Handle(ctx context.Context, q ListWorkspaceTokens) ([]TokenRecord, error) {
	if err := q.Caller.Access.RequireFull(); err != nil {
		return nil, err
	}
	if _, err := ownedWorkspace(ctx, h.read, q.Caller, q.WorkspaceID); err != nil {
		return nil, err
	}
	return h.tokens.TokensOfWorkspace(ctx, q.WorkspaceID)
}
