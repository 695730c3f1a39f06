package secrets

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// Key is one server secret (32 bytes). Keys for different purposes are
// derived from it, so it is never used directly.
type Key []byte

// Derive returns a purpose-specific 32-byte key.
func (k Key) Derive(purpose string) []byte {
	mac := hmac.New(sha256.New, k)
	mac.Write([]byte("formd/" + purpose))
	return mac.Sum(nil)
}

// ID is the key's id: 32 bits of a keyed hash, in 8 hex digits. It is stored
// with every sealed payload and written into every link token, so a reader
// knows which key made them; it says nothing about the key itself.
func (k Key) ID() string { return hex.EncodeToString(k.Derive("key-id")[:4]) }

// ParseKey reads a key of 64 hex digits; name is the variable it came from,
// for the error.
func ParseKey(name, hexKey string) (Key, error) {
	k, err := hex.DecodeString(strings.TrimSpace(hexKey))
	if err != nil || len(k) != 32 {
		return nil, fmt.Errorf("%s must be 64 hexadecimal digits (32 bytes), as `openssl rand -hex 32` prints", name)
	}
	return k, nil
}

// Keyring is the key formd seals and signs with (the current one) and older
// keys it still accepts for reading: payloads sealed and links issued before
// a rotation stay readable while their key is listed.
type Keyring struct {
	Current Key
	Old     []Key
}

// NewKeyring checks that no two keys share an id (the same key twice, or a
// 1 in 2^32 collision, which a fresh key avoids).
func NewKeyring(current Key, old ...Key) (Keyring, error) {
	seen := map[string]bool{current.ID(): true}
	for _, k := range old {
		if seen[k.ID()] {
			return Keyring{}, fmt.Errorf("secret key %s is listed twice (FORMD_SECRET_KEY, FORMD_SECRET_KEYS_OLD)", k.ID())
		}
		seen[k.ID()] = true
	}
	return Keyring{Current: current, Old: old}, nil
}

// All is every accepted key, the current one first.
func (r Keyring) All() []Key { return append([]Key{r.Current}, r.Old...) }

// Find returns the accepted key with the given id.
func (r Keyring) Find(id string) (Key, bool) {
	for _, k := range r.All() {
		if k.ID() == id {
			return k, true
		}
	}
	return nil, false
}

// ErrNoKey means formd was asked to serve without a configured secret key
// outside development mode.
var ErrNoKey = errors.New("FORMD_SECRET_KEY is not set: set it to 64 hex digits (`openssl rand -hex 32`), the same in every process, " +
	"or set FORMD_DEV=true to run in development mode with a generated key")

// LoadKeys builds the keyring from FORMD_SECRET_KEY (current) and
// FORMD_SECRET_KEYS_OLD (old). Without a current key it refuses, unless dev
// is set: then a key is generated once into dataDir/secret.key, with a
// warning. A generated key lives and dies with that folder, and a payload
// sealed under a lost key can never be delivered, so production must
// configure one.
func LoadKeys(current string, old []string, dataDir string, dev bool, log *slog.Logger) (Keyring, error) {
	var olds []Key
	for i, h := range old {
		if strings.TrimSpace(h) == "" {
			continue
		}
		k, err := ParseKey(fmt.Sprintf("FORMD_SECRET_KEYS_OLD (entry %d)", i+1), h)
		if err != nil {
			return Keyring{}, err
		}
		olds = append(olds, k)
	}
	var cur Key
	var err error
	switch {
	case strings.TrimSpace(current) != "":
		cur, err = ParseKey("FORMD_SECRET_KEY", current)
	case dev:
		cur, err = developmentKey(dataDir, log)
	default:
		err = ErrNoKey
	}
	if err != nil {
		return Keyring{}, err
	}
	return NewKeyring(cur, olds...)
}

// developmentKey reads dataDir/secret.key, generating it on first use.
func developmentKey(dataDir string, log *slog.Logger) (Key, error) {
	path := filepath.Join(dataDir, "secret.key")
	if b, err := os.ReadFile(path); err == nil {
		return ParseKey(path, string(b))
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
	log.Warn("development mode (FORMD_DEV): generated a secret key; production must set FORMD_SECRET_KEY and share it between processes", "path", path)
	return k, nil
}
