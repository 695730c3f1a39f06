package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/formd/formd/application"
)

// Sealer implements application.Sealer: each payload gets its own random
// AES-256-GCM data key, wrapped by a key derived from the server secret.
// Deleting the wrapped key and ciphertext destroys the payload for good.
type Sealer struct{ kek cipher.AEAD }

// NewSealer derives the key-encryption key from the server secret.
func NewSealer(k Key) (*Sealer, error) {
	aead, err := newGCM(k.Derive("payload-sealing"))
	if err != nil {
		return nil, err
	}
	return &Sealer{kek: aead}, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// seal encrypts with a random nonce prefixed to the output; the submission id
// is bound as additional data so a payload cannot be moved to another row.
func seal(aead cipher.AEAD, plaintext, aad []byte) ([]byte, error) {
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plaintext)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return aead.Seal(nonce, nonce, plaintext, aad), nil
}

func open(aead cipher.AEAD, sealed, aad []byte) ([]byte, error) {
	if len(sealed) < aead.NonceSize() {
		return nil, errors.New("sealed payload is too short")
	}
	return aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], aad)
}

// Seal implements application.Sealer.
func (s *Sealer) Seal(submissionID string, plaintext []byte) (application.SealedPayload, error) {
	dataKey := make([]byte, 32)
	if _, err := rand.Read(dataKey); err != nil {
		return application.SealedPayload{}, err
	}
	aead, err := newGCM(dataKey)
	if err != nil {
		return application.SealedPayload{}, err
	}
	ct, err := seal(aead, plaintext, []byte(submissionID))
	if err != nil {
		return application.SealedPayload{}, err
	}
	wrapped, err := seal(s.kek, dataKey, []byte(submissionID))
	return application.SealedPayload{WrappedKey: wrapped, Ciphertext: ct}, err
}

// Open implements application.Sealer.
func (s *Sealer) Open(submissionID string, p application.SealedPayload) ([]byte, error) {
	dataKey, err := open(s.kek, p.WrappedKey, []byte(submissionID))
	if err != nil {
		return nil, err
	}
	aead, err := newGCM(dataKey)
	if err != nil {
		return nil, err
	}
	return open(aead, p.Ciphertext, []byte(submissionID))
}

// ValueHasher implements application.ValueHasher with HMAC-SHA256.
type ValueHasher struct{ key []byte }

// NewValueHasher derives the hashing key from the server secret.
func NewValueHasher(k Key) *ValueHasher { return &ValueHasher{key: k.Derive("value-hashes")} }

// HashValue returns 128 bits of HMAC(key, form id, field, value) in hex.
func (v *ValueHasher) HashValue(formID, field, value string) string {
	mac := hmac.New(sha256.New, v.key)
	mac.Write([]byte(formID))
	mac.Write([]byte{0})
	mac.Write([]byte(field))
	mac.Write([]byte{0})
	mac.Write([]byte(value))
	return hex.EncodeToString(mac.Sum(nil)[:16])
}
