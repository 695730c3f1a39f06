package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/account"
)

// WorkspaceTokens reads workspace API tokens. Every control-plane call with a
// token looks it up here, in the database, with no cache: a deleted token
// stops at once, in every process.
type WorkspaceTokens interface {
	// ActiveTokenByHash finds the token whose SHA-256 is hash, unless it was
	// deleted or expired at now (domain.ErrNotFound).
	ActiveTokenByHash(ctx context.Context, hash []byte, now time.Time) (TokenRecord, error)
	// MarkTokenUsed sets the token's last use to at, unless it was last used
	// after staleBefore: a conditional UPDATE, so concurrent requests in any
	// number of processes write it at most once per interval.
	MarkTokenUsed(ctx context.Context, id string, at, staleBefore time.Time) error
	// TokenByID finds a token that was not deleted.
	TokenByID(ctx context.Context, id string) (TokenRecord, error)
	// TokensOfWorkspace lists the workspace's tokens that were not deleted,
	// expired ones included, oldest first.
	TokensOfWorkspace(ctx context.Context, workspaceID string) ([]TokenRecord, error)
}

// TokenRecord is a workspace API token as the tokens read model keeps it:
// never the token, whose hash only the store holds.
type TokenRecord struct {
	ID          string
	AccountID   string
	WorkspaceID string
	Name        string
	Prefix      string
	Scopes      []account.Scope
	CreatedAt   time.Time
	// ExpiresAt is nil for a token that never expires; LastUsedAt is nil
	// until the token is first used, and then exact to a minute.
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
}
