package application

import (
	"context"
	"strings"
)

// SignOut ends the session whose token came with the request (the
// dashboard's sign-out). Other sessions of the account go on.
type SignOut struct {
	SessionToken string
	RequestID    string
}

// SignOutHandler deletes one session.
type SignOutHandler struct {
	tx   Transactor
	auth *AuthenticateHandler
}

// NewSignOutHandler builds the handler; every dependency is required.
func NewSignOutHandler(tx Transactor, auth *AuthenticateHandler) *SignOutHandler {
	if tx == nil || auth == nil {
		panic("application: nil dependency of SignOutHandler")
	}
	return &SignOutHandler{tx: tx, auth: auth}
}

// Handle ends the session; an unknown or expired one is already ended, which
// is no error.
func (h *SignOutHandler) Handle(ctx context.Context, cmd SignOut) error {
	session, err := h.auth.Handle(ctx, Authenticate{Credential: cmd.SessionToken, Cookie: true})
	if err == ErrUnauthenticated {
		return nil
	}
	if err != nil {
		return err
	}
	hash := HashSecret(strings.TrimSpace(cmd.SessionToken))
	md := Metadata{Actor: Actor{Type: ActorSession, ID: session.CredentialID}, AccountID: session.AccountID, RequestID: cmd.RequestID}
	return h.tx.InTx(ctx, md, func(tx Tx) error { return tx.EndSession(ctx, hash) })
}
