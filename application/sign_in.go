package application

import (
	"context"
	"errors"
	"sync"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
)

// ErrWrongCredentials answers a sign-in whose email has no account, or whose
// password is not the account's: the same words for both, so the form tells
// nobody which addresses have accounts.
var ErrWrongCredentials = &domain.ForbiddenError{Message: "That email and password do not match an account."}

// SignIn is the dashboard's sign-in: an existing account's email and password.
// Unlike Register it never creates an account, so a mistyped address is an
// error instead of a new account.
type SignIn struct {
	Email     string
	Password  string
	RequestID string
}

// SignedIn is a new session for the account.
type SignedIn = Registered

// SignInHandler checks a password (Argon2id) and issues a session, the same
// session POST /agent/auth issues.
type SignInHandler struct {
	tx     Transactor
	read   AccountReader
	hasher PasswordHasher
	clock  Clock

	// decoy is a hash to check unknown addresses against, so a sign-in takes
	// as long whether or not the address has an account.
	decoyOnce sync.Once
	decoy     string
}

// NewSignInHandler builds the handler; every dependency is required.
func NewSignInHandler(tx Transactor, read AccountReader, hasher PasswordHasher, clock Clock) *SignInHandler {
	if tx == nil || read == nil || hasher == nil || clock == nil {
		panic("application: nil dependency of SignInHandler")
	}
	return &SignInHandler{tx: tx, read: read, hasher: hasher, clock: clock}
}

// Handle signs in, or answers ErrWrongCredentials.
func (h *SignInHandler) Handle(ctx context.Context, cmd SignIn) (SignedIn, error) {
	if cmd.Email == "" {
		return SignedIn{}, domain.Invalid("email", "Enter your email address.")
	}
	if cmd.Password == "" {
		return SignedIn{}, domain.Invalid("password", "Enter your password.")
	}
	existing, err := h.read.AccountByEmail(ctx, account.NormalizeEmail(cmd.Email))
	if errors.Is(err, domain.ErrNotFound) {
		h.checkDecoy(cmd.Password)
		return SignedIn{}, ErrWrongCredentials
	}
	if err != nil {
		return SignedIn{}, err
	}
	token := NewSecret("fds_")
	tokenHash := HashSecret(token)
	now := h.clock.Now()
	md := Metadata{Actor: Actor{Type: ActorSession, ID: CredentialID(tokenHash)}, AccountID: existing.ID, RequestID: cmd.RequestID}
	err = h.tx.InTx(ctx, md, func(tx Tx) error {
		a, err := tx.LoadAccount(ctx, existing.ID)
		if err != nil {
			return err
		}
		if a.PasswordHash() == "" {
			h.checkDecoy(cmd.Password)
			return ErrWrongCredentials
		}
		ok, err := h.hasher.Verify(cmd.Password, a.PasswordHash())
		if err != nil {
			return err
		}
		if !ok {
			return ErrWrongCredentials
		}
		return tx.CreateSession(ctx, tokenHash, existing.ID, now.Add(SessionLifetime))
	})
	if err != nil {
		return SignedIn{}, err
	}
	return SignedIn{AccountID: existing.ID, SessionToken: token, ExpiresAt: now.Add(SessionLifetime),
		VerificationRequired: !existing.EmailVerified, Existing: true}, nil
}

// checkDecoy spends one password check on a hash nobody's password matches.
func (h *SignInHandler) checkDecoy(password string) {
	h.decoyOnce.Do(func() { h.decoy, _ = h.hasher.Hash(NewSecret("decoy_")) })
	if h.decoy != "" {
		_, _ = h.hasher.Verify(password, h.decoy)
	}
}
