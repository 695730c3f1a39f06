package application

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
)

// TokenUseResolution is how exact a workspace token's last use is: it is
// written at most once per interval per token, so authenticating stays a
// read on almost every request.
const TokenUseResolution = time.Minute

// Authenticate is a control-plane call's credential: a bearer token or the
// session cookie.
type Authenticate struct {
	Credential string
	// Cookie says the credential came in the session cookie, which carries
	// sessions only: a workspace token belongs in an Authorization header.
	Cookie bool
}

// AuthenticateHandler turns a credential into the caller's Session. It is a
// query, but a workspace token's use is noted (at most once a minute).
type AuthenticateHandler struct {
	read   SessionReader
	tokens WorkspaceTokens
	clock  Clock
}

// NewAuthenticateHandler builds the handler; every dependency is required.
func NewAuthenticateHandler(read SessionReader, tokens WorkspaceTokens, clock Clock) *AuthenticateHandler {
	if read == nil || tokens == nil || clock == nil {
		panic("application: nil dependency of AuthenticateHandler")
	}
	return &AuthenticateHandler{read: read, tokens: tokens, clock: clock}
}

// Handle checks the credential; anything unknown, expired or deleted is
// ErrUnauthenticated. A workspace API token (fdw_…) is told from a session
// by its prefix and looked up in its own table.
func (h *AuthenticateHandler) Handle(ctx context.Context, q Authenticate) (Session, error) {
	credential := strings.TrimSpace(q.Credential)
	if credential == "" || len(credential) > 512 {
		return Session{}, ErrUnauthenticated
	}
	hash := HashSecret(credential)
	now := h.clock.Now()
	if strings.HasPrefix(credential, account.TokenPrefix) {
		if q.Cookie {
			return Session{}, ErrUnauthenticated
		}
		return h.token(ctx, hash, now)
	}
	acc, err := h.read.SessionByTokenHash(ctx, hash, now)
	if errors.Is(err, domain.ErrNotFound) {
		return Session{}, ErrUnauthenticated
	}
	if err != nil {
		return Session{}, err
	}
	return Session{AccountID: acc.ID, CredentialID: CredentialID(hash), ActorType: ActorSession, Access: account.FullAccess()}, nil
}

// token authenticates a workspace API token and notes its use when the last
// one noted is a minute old or more.
func (h *AuthenticateHandler) token(ctx context.Context, hash []byte, now time.Time) (Session, error) {
	t, err := h.tokens.ActiveTokenByHash(ctx, hash, now)
	if errors.Is(err, domain.ErrNotFound) {
		return Session{}, ErrUnauthenticated
	}
	if err != nil {
		return Session{}, err
	}
	staleBefore := now.Add(-TokenUseResolution)
	if t.LastUsedAt == nil || !t.LastUsedAt.After(staleBefore) {
		if err := h.tokens.MarkTokenUsed(ctx, t.ID, now, staleBefore); err != nil {
			return Session{}, err
		}
	}
	return Session{AccountID: t.AccountID, CredentialID: t.ID, ActorType: ActorToken,
		Access: account.TokenAccess(t.WorkspaceID, t.Scopes)}, nil
}
