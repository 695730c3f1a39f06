package application

import (
	"context"
	"errors"
	"strings"

	"github.com/formd/formd/domain"
)

// Authenticate is a control-plane call's credential: a bearer token or the
// session cookie.
type Authenticate struct {
	Credential string
}

// AuthenticateHandler turns a credential into the caller's Session.
type AuthenticateHandler struct {
	read  ReadModel
	clock Clock
}

// NewAuthenticateHandler builds the handler; every dependency is required.
func NewAuthenticateHandler(read ReadModel, clock Clock) *AuthenticateHandler {
	if read == nil || clock == nil {
		panic("application: nil dependency of AuthenticateHandler")
	}
	return &AuthenticateHandler{read: read, clock: clock}
}

// Handle checks the credential; anything unknown or expired is ErrUnauthenticated.
func (h *AuthenticateHandler) Handle(ctx context.Context, q Authenticate) (Session, error) {
	credential := strings.TrimSpace(q.Credential)
	if credential == "" || len(credential) > 512 {
		return Session{}, ErrUnauthenticated
	}
	hash := HashSecret(credential)
	acc, err := h.read.SessionByTokenHash(ctx, hash, h.clock.Now())
	if errors.Is(err, domain.ErrNotFound) {
		return Session{}, ErrUnauthenticated
	}
	if err != nil {
		return Session{}, err
	}
	return Session{AccountID: acc.ID, CredentialID: CredentialID(hash), ActorType: ActorSession}, nil
}
