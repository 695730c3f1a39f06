package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
)

// WorkspacesByAccount implements application.ReadModel.
func (r *ReadModel) WorkspacesByAccount(ctx context.Context, accountID string) ([]application.WorkspaceRecord, error) {
	rows, err := r.pool.Query(ctx, `SELECT id::text, account_id::text, name, created_at FROM workspaces
		WHERE account_id = $1 ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (application.WorkspaceRecord, error) {
		var w application.WorkspaceRecord
		err := row.Scan(&w.ID, &w.AccountID, &w.Name, &w.CreatedAt)
		return w, err
	})
}

const tokenColumns = `id::text, account_id::text, workspace_id::text, name, prefix, scopes, created_at, expires_at, last_used_at`

func scanToken(row pgx.Row) (application.TokenRecord, error) {
	var t application.TokenRecord
	var scopes []string
	err := row.Scan(&t.ID, &t.AccountID, &t.WorkspaceID, &t.Name, &t.Prefix, &scopes, &t.CreatedAt, &t.ExpiresAt, &t.LastUsedAt)
	if err != nil {
		return t, notFound(err)
	}
	t.Scopes = make([]account.Scope, len(scopes))
	for i, s := range scopes {
		t.Scopes[i] = account.Scope(s)
	}
	return t, nil
}

// ActiveTokenByHash implements application.WorkspaceTokens: one lookup on
// the unique hash, on every request that carries a token, so a deletion in
// any process is seen by the next request in every other.
func (r *ReadModel) ActiveTokenByHash(ctx context.Context, hash []byte, now time.Time) (application.TokenRecord, error) {
	return scanToken(r.pool.QueryRow(ctx, `SELECT `+tokenColumns+` FROM workspace_tokens
		WHERE token_hash = $1 AND (expires_at IS NULL OR expires_at > $2)`, hash, now))
}

// MarkTokenUsed implements application.WorkspaceTokens. The condition is
// checked again under the row lock, so of concurrent requests at most one
// per interval writes.
func (r *ReadModel) MarkTokenUsed(ctx context.Context, id string, at, staleBefore time.Time) error {
	_, err := r.pool.Exec(ctx, `UPDATE workspace_tokens SET last_used_at = $2
		WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)`, id, at, staleBefore)
	return err
}

// TokenByID implements application.WorkspaceTokens.
func (r *ReadModel) TokenByID(ctx context.Context, id string) (application.TokenRecord, error) {
	return scanToken(r.pool.QueryRow(ctx, `SELECT `+tokenColumns+` FROM workspace_tokens WHERE id = $1`, id))
}

// TokensOfWorkspace implements application.WorkspaceTokens.
func (r *ReadModel) TokensOfWorkspace(ctx context.Context, workspaceID string) ([]application.TokenRecord, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+tokenColumns+` FROM workspace_tokens
		WHERE workspace_id = $1 ORDER BY created_at, id`, workspaceID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (application.TokenRecord, error) { return scanToken(row) })
}
