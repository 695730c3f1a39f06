package application

import (
	"context"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
)

// ListWorkspaces is GET /v1/workspaces.
type ListWorkspaces struct {
	Caller Session
}

// ListWorkspacesHandler lists the workspaces the caller reaches.
type ListWorkspacesHandler struct {
	read WorkspaceReader
}

// NewListWorkspacesHandler builds the handler; every dependency is required.
func NewListWorkspacesHandler(read WorkspaceReader) *ListWorkspacesHandler {
	if read == nil {
		panic("application: nil dependency of ListWorkspacesHandler")
	}
	return &ListWorkspacesHandler{read: read}
}

// Handle lists a session's every workspace of its account, and a workspace
// token's own workspace only, oldest first.
func (h *ListWorkspacesHandler) Handle(ctx context.Context, q ListWorkspaces) ([]WorkspaceRecord, error) {
	if err := q.Caller.Require(account.ScopeFormsRead); err != nil {
		return nil, err
	}
	all, err := h.read.WorkspacesByAccount(ctx, q.Caller.AccountID)
	if err != nil {
		return nil, err
	}
	visible := all[:0]
	for _, w := range all {
		if q.Caller.Access.Sees(w.ID) {
			visible = append(visible, w)
		}
	}
	return visible, nil
}

// ownedWorkspace finds a workspace of the caller's account; any other is not
// found.
func ownedWorkspace(ctx context.Context, read WorkspaceReader, caller Session, id string) (WorkspaceRecord, error) {
	all, err := read.WorkspacesByAccount(ctx, caller.AccountID)
	if err != nil {
		return WorkspaceRecord{}, err
	}
	for _, w := range all {
		if w.ID == id && caller.Access.Sees(w.ID) {
			return w, nil
		}
	}
	return WorkspaceRecord{}, domain.ErrNotFound
}
