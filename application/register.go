package application

import (
	"context"
	"errors"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/verification"
)

// SessionLifetime is how long a session token from POST /agent/auth lasts.
const SessionLifetime = 30 * 24 * time.Hour

// Register is POST /agent/auth: a user_claimed registration.
type Register struct {
	Email                   string
	Type                    string
	Name                    string
	Password                string
	RequestedCredentialType string
	RequestID               string
	// Language is the catalog language of the request (its Accept-Language
	// matched by Messages.Language), for the words of the verification
	// mails it causes; blank is English.
	Language string
}

// Registered is the outcome of a registration: a new session for a new
// account, or for an existing one whose password was given.
type Registered struct {
	AccountID            string
	SessionToken         string
	ExpiresAt            time.Time
	VerificationRequired bool
	Existing             bool
}

// RegisterHandler registers accounts and issues sessions.
type RegisterHandler struct {
	tx     Transactor
	read   AccountReader
	hasher PasswordHasher
	ids    IDs
	clock  Clock
	tokens LinkTokens
}

// NewRegisterHandler builds the handler; every dependency is required.
func NewRegisterHandler(tx Transactor, read AccountReader, hasher PasswordHasher, ids IDs, clock Clock, tokens LinkTokens) *RegisterHandler {
	if tx == nil || read == nil || hasher == nil || ids == nil || clock == nil || tokens == nil {
		panic("application: nil dependency of RegisterHandler")
	}
	return &RegisterHandler{tx: tx, read: read, hasher: hasher, ids: ids, clock: clock, tokens: tokens}
}

// Handle registers the account, or signs in to an existing one with its password.
func (h *RegisterHandler) Handle(ctx context.Context, cmd Register) (Registered, error) {
	if cmd.Type != "" && cmd.Type != "user_claimed" {
		return Registered{}, domain.Invalid("type", "only the user_claimed registration type is supported")
	}
	if cmd.RequestedCredentialType != "" && cmd.RequestedCredentialType != "session_token" {
		return Registered{}, domain.Invalid("requested_credential_type", "only the session_token credential type is supported")
	}
	if cmd.Password != "" {
		if err := account.ValidatePassword(cmd.Password); err != nil {
			return Registered{}, err
		}
	}
	email := account.NormalizeEmail(cmd.Email)
	existing, err := h.read.AccountByEmail(ctx, email)
	switch {
	case err == nil:
		return h.signIn(ctx, existing, cmd)
	case !errors.Is(err, domain.ErrNotFound):
		return Registered{}, err
	}

	var hash string
	if cmd.Password != "" {
		if hash, err = h.hasher.Hash(cmd.Password); err != nil {
			return Registered{}, err
		}
	}
	accountID := h.ids.New()
	token := NewSecret("fds_")
	tokenHash := HashSecret(token)
	now := h.clock.Now()
	md := Metadata{Actor: Actor{Type: ActorAgent, ID: CredentialID(tokenHash)}, AccountID: accountID, RequestID: cmd.RequestID}
	err = h.tx.InTx(ctx, md, func(tx Tx) error {
		a, err := account.Register(account.Registration{
			AccountID: accountID, Email: cmd.Email, Name: cmd.Name, PasswordHash: hash, WorkspaceID: h.ids.New(),
		}, now)
		if err != nil {
			return err
		}
		if err := tx.SaveAccount(ctx, a); err != nil {
			return err
		}
		if err := requestVerification(ctx, tx, h.ids, h.tokens, verification.KindAccount, accountID, accountID, a.Email(), cmd.Language, now); err != nil {
			return err
		}
		return tx.CreateSession(ctx, tokenHash, accountID, now.Add(SessionLifetime))
	})
	if err != nil {
		return Registered{}, err
	}
	return Registered{AccountID: accountID, SessionToken: token, ExpiresAt: now.Add(SessionLifetime), VerificationRequired: true}, nil
}

// signIn hands a new session for an existing account only to a caller who
// knows its password; anyone else learns nothing more than that it exists.
func (h *RegisterHandler) signIn(ctx context.Context, existing AccountRecord, cmd Register) (Registered, error) {
	if cmd.Password == "" {
		return Registered{}, account.ErrEmailTaken
	}
	token := NewSecret("fds_")
	tokenHash := HashSecret(token)
	now := h.clock.Now()
	md := Metadata{Actor: Actor{Type: ActorAgent, ID: CredentialID(tokenHash)}, AccountID: existing.ID, RequestID: cmd.RequestID}
	err := h.tx.InTx(ctx, md, func(tx Tx) error {
		a, err := tx.LoadAccount(ctx, existing.ID)
		if err != nil {
			return err
		}
		if a.PasswordHash() == "" {
			return account.ErrEmailTaken
		}
		ok, err := h.hasher.Verify(cmd.Password, a.PasswordHash())
		if err != nil {
			return err
		}
		if !ok {
			return account.ErrEmailTaken
		}
		return tx.CreateSession(ctx, tokenHash, existing.ID, now.Add(SessionLifetime))
	})
	if err != nil {
		return Registered{}, err
	}
	return Registered{AccountID: existing.ID, SessionToken: token, ExpiresAt: now.Add(SessionLifetime),
		VerificationRequired: !existing.EmailVerified, Existing: true}, nil
}

// TellsAccountExists says whether a registration's outcome tells its caller
// whether the address has an account: a new account, or account.ErrEmailTaken
// (registration answers so by the spec's contract, which gives a new
// account its session at once). A sign-in with the account's password, and
// input refused before any lookup, tell nothing; ports count only the
// outcomes that tell, to make probing many addresses slow.
func TellsAccountExists(out Registered, err error) bool {
	if err != nil {
		return errors.Is(err, account.ErrEmailTaken)
	}
	return !out.Existing
}
