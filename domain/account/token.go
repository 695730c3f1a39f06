package account

import (
	"errors"
	"strings"
	"time"
	"unicode"

	"github.com/formd/formd/domain"
)

// Token event type names as stored.
const (
	TokenCreatedType = "account.token_created.v1"
	TokenRevokedType = "account.token_revoked.v1"
)

// Workspace API token limits.
const (
	// TokenPrefix starts every workspace API token, so one is recognisable in
	// a config file or a secret scanner and never mistaken for a session
	// credential (fds_).
	TokenPrefix = "fdw_"
	// MaxTokenNameLength bounds a token's name, in characters.
	MaxTokenNameLength = 100
	// MaxTokensPerWorkspace bounds the tokens a workspace holds at once
	// (expired ones count until deleted), so listing stays small.
	MaxTokensPerWorkspace = 50
)

// TokenCreated records a new workspace API token. TokenHash is the hex
// SHA-256 of the token, never the token, kept in the event as a form's
// access key hash is, so the tokens read model can be rebuilt from events.
// ExpiresAt is nil for a token that never expires.
type TokenCreated struct {
	TokenID     string
	WorkspaceID string
	Name        string
	Prefix      string
	TokenHash   string
	Scopes      []Scope
	ExpiresAt   *time.Time
	At          time.Time
}

// EventType implements Event.
func (TokenCreated) EventType() string { return TokenCreatedType }

// TokenRevoked records that a workspace API token was deleted: it stops
// working at once.
type TokenRevoked struct {
	TokenID string
	At      time.Time
}

// EventType implements Event.
func (TokenRevoked) EventType() string { return TokenRevokedType }

// NewToken is what creating a workspace API token takes. Hash and Prefix are
// made by the caller from the random token, which the account never sees.
type NewToken struct {
	ID, WorkspaceID, Name string
	Prefix, Hash          string
	Scopes                []string
	ExpiresAt             *time.Time
}

// tokenState is what the account remembers of one of its tokens.
type tokenState struct {
	workspaceID string
}

// CreateToken records a new workspace API token of one of the account's
// workspaces. A workspace of anyone else is not found.
func (a *Account) CreateToken(t NewToken, now time.Time) error {
	if t.ID == "" || t.Prefix == "" || t.Hash == "" {
		return errors.New("account: a token needs an id, a prefix and a hash")
	}
	if !a.HasWorkspace(t.WorkspaceID) {
		return domain.ErrNotFound
	}
	name := strings.TrimSpace(t.Name)
	if name == "" || len([]rune(name)) > MaxTokenNameLength || strings.ContainsFunc(name, unicode.IsControl) {
		return domain.Invalid("name", "name must be 1 to %d characters on one line", MaxTokenNameLength)
	}
	scopes, err := ParseScopes(t.Scopes)
	if err != nil {
		return err
	}
	var expires *time.Time
	if t.ExpiresAt != nil {
		if !t.ExpiresAt.After(now) {
			return domain.Invalid("expiresAt", "expiresAt must be in the future")
		}
		e := t.ExpiresAt.UTC()
		expires = &e
	}
	if a.tokensIn(t.WorkspaceID) >= MaxTokensPerWorkspace {
		return domain.Invalid("workspaceId", "a workspace holds at most %d tokens; delete one first", MaxTokensPerWorkspace)
	}
	a.record(TokenCreated{TokenID: t.ID, WorkspaceID: t.WorkspaceID, Name: name, Prefix: t.Prefix, TokenHash: t.Hash,
		Scopes: scopes, ExpiresAt: expires, At: now.UTC()})
	return nil
}

// RevokeToken deletes a token of workspaceID. A token that is unknown, of
// another workspace, or already deleted is not found.
func (a *Account) RevokeToken(workspaceID, tokenID string, now time.Time) error {
	t, ok := a.tokens[tokenID]
	if !ok || t.workspaceID != workspaceID {
		return domain.ErrNotFound
	}
	a.record(TokenRevoked{TokenID: tokenID, At: now.UTC()})
	return nil
}

// tokensIn counts the workspace's tokens that were not deleted.
func (a *Account) tokensIn(workspaceID string) int {
	n := 0
	for _, t := range a.tokens {
		if t.workspaceID == workspaceID {
			n++
		}
	}
	return n
}
