package postgres_test

import (
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
)

// seedToken creates a token of the account's default workspace through the
// unit of work and returns its id and its workspace.
func (e uowEnv) seedToken(t *testing.T, accountID, hash string, expires *time.Time) (tokenID, workspaceID string) {
	t.Helper()
	tokenID = uuid.NewString()
	e.run(t, func(tx application.Tx) error {
		a, err := tx.LoadAccount(e.ctx, accountID)
		if err != nil {
			return err
		}
		workspaceID = a.DefaultWorkspaceID()
		if err := a.CreateToken(account.NewToken{ID: tokenID, WorkspaceID: workspaceID, Name: "CI", Prefix: "fdw_abcdefgh",
			Hash: hash, Scopes: []string{"forms:write", "forms:read"}, ExpiresAt: expires}, time.Now()); err != nil {
			return err
		}
		return tx.SaveAccount(e.ctx, a)
	})
	return tokenID, workspaceID
}

func TestWorkspaceTokensFollowTheAccountStream(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	accountID, _ := e.seedForm(t)
	secret := "fdw_round-trip"
	hash := application.HashSecret(secret)
	tokenID, ws := e.seedToken(t, accountID, hexOf(hash), nil)

	got, err := e.read.ActiveTokenByHash(e.ctx, hash, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != tokenID || got.AccountID != accountID || got.WorkspaceID != ws || got.Name != "CI" || got.Prefix != "fdw_abcdefgh" ||
		len(got.Scopes) != 2 || got.Scopes[0] != account.ScopeFormsRead || got.ExpiresAt != nil || got.LastUsedAt != nil {
		t.Fatalf("token read back as %+v", got)
	}
	listed, err := e.read.TokensOfWorkspace(e.ctx, ws)
	if err != nil || len(listed) != 1 || listed[0].ID != tokenID {
		t.Fatalf("TokensOfWorkspace = %+v, %v", listed, err)
	}
	workspaces, err := e.read.WorkspacesByAccount(e.ctx, accountID)
	if err != nil || len(workspaces) != 1 || workspaces[0].ID != ws || workspaces[0].Name != "Default" {
		t.Fatalf("WorkspacesByAccount = %+v, %v", workspaces, err)
	}
	var stored int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM workspace_tokens WHERE token_hash = $1`, hash).Scan(&stored); err != nil || stored != 1 {
		t.Fatalf("the token's hash is stored %d times (%v)", stored, err)
	}

	e.run(t, func(tx application.Tx) error {
		a, err := tx.LoadAccount(e.ctx, accountID)
		if err != nil {
			return err
		}
		if err := a.RevokeToken(ws, tokenID, time.Now()); err != nil {
			return err
		}
		return tx.SaveAccount(e.ctx, a)
	})
	if _, err := e.read.ActiveTokenByHash(e.ctx, hash, time.Now()); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("a revoked token is found: %v", err)
	}
	if _, err := e.read.TokenByID(e.ctx, tokenID); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("a revoked token is listed: %v", err)
	}
}

func TestAnExpiredTokenIsNotActive(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	accountID, _ := e.seedForm(t)
	hash := application.HashSecret("fdw_expiring")
	expires := time.Now().Add(time.Hour)
	e.seedToken(t, accountID, hexOf(hash), &expires)
	if _, err := e.read.ActiveTokenByHash(e.ctx, hash, expires.Add(-time.Second)); err != nil {
		t.Errorf("before its expiry: %v", err)
	}
	if _, err := e.read.ActiveTokenByHash(e.ctx, hash, expires); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("at its expiry: %v, want domain.ErrNotFound", err)
	}
}

// TestMarkTokenUsedWritesOncePerInterval: of many concurrent marks with the
// same interval, one writes; a later one within the interval changes nothing.
func TestMarkTokenUsedWritesOncePerInterval(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	accountID, _ := e.seedForm(t)
	hash := application.HashSecret("fdw_used")
	tokenID, _ := e.seedToken(t, accountID, hexOf(hash), nil)
	first := time.Now().UTC().Truncate(time.Microsecond)
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			errs <- e.read.MarkTokenUsed(e.ctx, tokenID, first.Add(time.Duration(i)*time.Millisecond), first.Add(-time.Minute))
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got, err := e.read.TokenByID(e.ctx, tokenID)
	if err != nil || got.LastUsedAt == nil {
		t.Fatalf("TokenByID = %+v, %v", got, err)
	}
	noted := *got.LastUsedAt
	// 30 s later, with the interval's start before the noted use: no write.
	if err := e.read.MarkTokenUsed(e.ctx, tokenID, first.Add(30*time.Second), first.Add(-30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.read.TokenByID(e.ctx, tokenID); !got.LastUsedAt.Equal(noted) {
		t.Errorf("last use moved to %v within the interval, want %v", got.LastUsedAt, noted)
	}
	// A minute after the noted use: written.
	later := noted.Add(time.Minute)
	if err := e.read.MarkTokenUsed(e.ctx, tokenID, later, later.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.read.TokenByID(e.ctx, tokenID); !got.LastUsedAt.Equal(later) {
		t.Errorf("last use = %v, want %v", got.LastUsedAt, later)
	}
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }
