// Package secrets holds formd's cryptography: Argon2id password hashing, link
// tokens derived from the server secret, and the secret's loading.
package secrets

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters: OWASP's minimum (19 MiB, 2 passes, 1 lane).
const (
	argonMemory  = 19 * 1024
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
)

// Argon2 implements application.PasswordHasher with Argon2id PHC strings.
type Argon2 struct{}

// Hash returns $argon2id$v=19$m=...,t=...,p=...$salt$hash.
func (Argon2) Hash(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// Verify checks password against an encoded hash in constant time.
func (Argon2) Verify(password, encoded string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errors.New("not an argon2id hash")
	}
	var m uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false, err
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false, err
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// Key is the server secret (32 bytes). Keys for different purposes are derived
// from it, so it is never used directly.
type Key []byte

// Derive returns a purpose-specific 32-byte key.
func (k Key) Derive(purpose string) []byte {
	mac := hmac.New(sha256.New, k)
	mac.Write([]byte("formd/" + purpose))
	return mac.Sum(nil)
}

// LinkTokens implements application.LinkTokens with HMAC-SHA256.
type LinkTokens struct{ key []byte }

// NewLinkTokens derives the link key from the server secret.
func NewLinkTokens(k Key) *LinkTokens { return &LinkTokens{key: k.Derive("verification-links")} }

// Token is base64url(HMAC(key, verification id)).
func (l *LinkTokens) Token(verificationID string) string {
	mac := hmac.New(sha256.New, l.key)
	mac.Write([]byte(verificationID))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// LoadKey reads the secret from hexKey (FORMD_SECRET_KEY, 64 hex digits). When it
// is empty, a key is generated once into dataDir/secret.key for development,
// with a warning: several processes must share one configured key.
func LoadKey(hexKey, dataDir string, log *slog.Logger) (Key, error) {
	if hexKey != "" {
		k, err := hex.DecodeString(strings.TrimSpace(hexKey))
		if err != nil || len(k) != 32 {
			return nil, errors.New("FORMD_SECRET_KEY must be 64 hexadecimal digits (32 bytes)")
		}
		return k, nil
	}
	path := filepath.Join(dataDir, "secret.key")
	if b, err := os.ReadFile(path); err == nil {
		return LoadKey(string(b), "", log)
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, []byte(hex.EncodeToString(k)), 0o600); err != nil {
		return nil, err
	}
	log.Warn("FORMD_SECRET_KEY is not set: generated a development key; set it in production and share it between processes", "path", path)
	return k, nil
}
