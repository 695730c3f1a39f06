package application

import (
	"context"
	"encoding/hex"
	"time"

	"github.com/formd/formd/domain/account"
)

// tokenPrefixLength is how much of a workspace token stays visible after
// creation: its kind (fdw_) and 8 random characters (48 of its 256 bits),
// enough to tell tokens apart in a list.
const tokenPrefixLength = len(account.TokenPrefix) + 8

// CreateWorkspaceToken is POST /v1/workspaces/{workspaceId}/tokens.
type CreateWorkspaceToken struct {
	Caller      Session
	RequestID   string
	WorkspaceID string
	Name        string
	Scopes      []string
	// ExpiresAt is nil for a token that never expires.
	ExpiresAt *time.Time
}

// WorkspaceTokenCreated carries the token, shown only this once.
type WorkspaceTokenCreated struct {
	Token  TokenRecord
	Secret string
}

// CreateWorkspaceTokenHandler makes a workspace API token.
type CreateWorkspaceTokenHandler struct {
	tx     Transactor
	tokens WorkspaceTokens
	ids    IDs
	clock  Clock
}

// NewCreateWorkspaceTokenHandler builds the handler; every dependency is required.
func NewCreateWorkspaceTokenHandler(tx Transactor, tokens WorkspaceTokens, ids IDs, clock Clock) *CreateWorkspaceTokenHandler {
	if tx == nil || tokens == nil || ids == nil || clock == nil {
		panic("application: nil dependency of CreateWorkspaceTokenHandler")
	}
	return &CreateWorkspaceTokenHandler{tx: tx, tokens: tokens, ids: ids, clock: clock}
}

// Handle makes the token: 256 random bits after its fdw_ prefix, stored as
// its SHA-256 only. Only a session may: a token cannot make tokens. The
// token.created event names the session as its actor.
func (h *CreateWorkspaceTokenHandler) Handle(ctx context.Context, cmd CreateWorkspaceToken) (WorkspaceTokenCreated, error) {
	if err := cmd.Caller.Access.RequireFull(); err != nil {
		return WorkspaceTokenCreated{}, err
	}
	secret := NewSecret(account.TokenPrefix)
	id := h.ids.New()
	now := h.clock.Now()
	err := h.tx.InTx(ctx, metadataFor(cmd.Caller, cmd.RequestID), func(tx Tx) error {
		a, err := tx.LoadAccount(ctx, cmd.Caller.AccountID)
		if err != nil {
			return err
		}
		err = a.CreateToken(account.NewToken{
			ID: id, WorkspaceID: cmd.WorkspaceID, Name: cmd.Name, Scopes: cmd.Scopes, ExpiresAt: cmd.ExpiresAt,
			Prefix: secret[:tokenPrefixLength], Hash: hex.EncodeToString(HashSecret(secret)),
		}, now)
		if err != nil {
			return err
		}
		return tx.SaveAccount(ctx, a)
	})
	if err != nil {
		return WorkspaceTokenCreated{}, err
	}
	rec, err := h.tokens.TokenByID(ctx, id)
	return WorkspaceTokenCreated{Token: rec, Secret: secret}, err
}
