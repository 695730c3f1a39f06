package application

import (
	"context"
	"errors"
	"strings"

	"github.com/formd/formd/domain"
)

// Authenticator turns a bearer token or session cookie into a Session.
type Authenticator struct {
	read  ReadModel
	clock Clock
}

// NewAuthenticator builds the authenticator.
func NewAuthenticator(read ReadModel, clock Clock) *Authenticator {
	return &Authenticator{read: read, clock: clock}
}

// Authenticate checks a credential; anything unknown or expired is ErrUnauthenticated.
func (a *Authenticator) Authenticate(ctx context.Context, credential string) (Session, error) {
	credential = strings.TrimSpace(credential)
	if credential == "" || len(credential) > 512 {
		return Session{}, ErrUnauthenticated
	}
	hash := HashSecret(credential)
	acc, err := a.read.SessionByTokenHash(ctx, hash, a.clock.Now())
	if errors.Is(err, domain.ErrNotFound) {
		return Session{}, ErrUnauthenticated
	}
	if err != nil {
		return Session{}, err
	}
	return Session{AccountID: acc.ID, CredentialID: CredentialID(hash), ActorType: ActorSession}, nil
}
