package application

import "context"

// RevokeWorkspaceToken is DELETE /v1/workspaces/{workspaceId}/tokens/{tokenId}.
type RevokeWorkspaceToken struct {
	Caller      Session
	RequestID   string
	WorkspaceID string
	TokenID     string
}

// RevokeWorkspaceTokenHandler deletes a workspace API token.
type RevokeWorkspaceTokenHandler struct {
	tx    Transactor
	clock Clock
}

// NewRevokeWorkspaceTokenHandler builds the handler; every dependency is required.
func NewRevokeWorkspaceTokenHandler(tx Transactor, clock Clock) *RevokeWorkspaceTokenHandler {
	if tx == nil || clock == nil {
		panic("application: nil dependency of RevokeWorkspaceTokenHandler")
	}
	return &RevokeWorkspaceTokenHandler{tx: tx, clock: clock}
}

// Handle deletes the token; its next use, in any process, is refused, since
// every request looks its token up in the database. A token unknown, of
// another workspace or already deleted is not found. Only a session may.
func (h *RevokeWorkspaceTokenHandler) Handle(ctx context.Context, cmd RevokeWorkspaceToken) error {
	if err := cmd.Caller.Access.RequireFull(); err != nil {
		return err
	}
	now := h.clock.Now()
	return h.tx.InTx(ctx, metadataFor(cmd.Caller, cmd.RequestID), func(tx Tx) error {
		a, err := tx.LoadAccount(ctx, cmd.Caller.AccountID)
		if err != nil {
			return err
		}
		if err := a.RevokeToken(cmd.WorkspaceID, cmd.TokenID, now); err != nil {
			return err
		}
		return tx.SaveAccount(ctx, a)
	})
}
