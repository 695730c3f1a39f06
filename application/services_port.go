package application

import (
	"context"
	"time"
)

// Clock tells the time; tests may fix it.
type Clock interface{ Now() time.Time }

// IDs makes new random identifiers (UUIDs).
type IDs interface{ New() string }

// Later runs work after the request that asked for it is answered, so the
// answer's timing does not depend on that work (a password reset for an
// address with or without an account). Work a crash cuts off is lost: use
// it only for work its requester can ask for again.
type Later interface {
	Go(name string, work func(ctx context.Context) error)
}

// PasswordHasher hashes and checks passwords (Argon2id in production).
type PasswordHasher interface {
	Hash(password string) (string, error)
	Verify(password, encoded string) (bool, error)
}

// LinkTokens derives the one-time token of a verification link from the
// verification id and the server secret, so the token itself is never stored.
// A token names the key that made it; after a key rotation the old key's
// tokens stay valid while that key is still accepted for reading.
type LinkTokens interface {
	// Token is the verification's token under the current key.
	Token(verificationID string) string
	// Tokens is the verification's token under each accepted key, the
	// current key's first: the mail of a verification requested before a
	// rotation carries the token it was requested with.
	Tokens(verificationID string) []string
	// Verify reports whether token was made for the verification by a key
	// that is still accepted.
	Verify(verificationID, token string) bool
}
