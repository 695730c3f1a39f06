package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"sync"

	"github.com/formd/formd/application"
)

// Sealer implements application.Sealer: each payload gets its own random
// AES-256-GCM data key, wrapped by a key derived from the server secret.
// Deleting the wrapped key and ciphertext destroys the payload for good.
// It seals under the current key and opens under any key of the ring, found
// by the key id stored with the payload.
type Sealer struct {
	current string
	keks    map[string]cipher.AEAD // by key id
	order   []string               // key ids, the current one first
}

// NewSealer derives a key-encryption key from each key of the ring.
func NewSealer(r Keyring) (*Sealer, error) {
	s := &Sealer{current: r.Current.ID(), keks: map[string]cipher.AEAD{}}
	for _, k := range r.All() {
		aead, err := newGCM(k.Derive("payload-sealing"))
		if err != nil {
			return nil, err
		}
		s.keks[k.ID()] = aead
		s.order = append(s.order, k.ID())
	}
	return s, nil
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

// CurrentKeyID implements application.KeyedSealer: the id of the key Seal
// wraps under.
func (s *Sealer) CurrentKeyID() string { return s.current }

// Seal implements application.Sealer, under the current key.
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
	wrapped, err := seal(s.keks[s.current], dataKey, []byte(submissionID))
	return application.SealedPayload{KeyID: s.current, WrappedKey: wrapped, Ciphertext: ct}, err
}

// Open implements application.Sealer. A payload sealed before key ids existed
// (no KeyID) is tried under every key, the current one first. The errors
// name key ids only, never keys.
func (s *Sealer) Open(submissionID string, p application.SealedPayload) ([]byte, error) {
	ids := []string{p.KeyID}
	if p.KeyID == "" {
		ids = s.order
	} else if _, ok := s.keks[p.KeyID]; !ok {
		return nil, fmt.Errorf("sealed under key %s, which is neither FORMD_SECRET_KEY nor listed in FORMD_SECRET_KEYS_OLD", p.KeyID)
	}
	var dataKey []byte
	var err error
	for _, id := range ids {
		if dataKey, err = open(s.keks[id], p.WrappedKey, []byte(submissionID)); err == nil {
			break
		}
	}
	if err != nil {
		if p.KeyID == "" {
			return nil, fmt.Errorf("sealed without a key id, and no configured key opens it: %w", err)
		}
		return nil, fmt.Errorf("sealed under key %s, which does not open it (the key or the data changed): %w", p.KeyID, err)
	}
	aead, err := newGCM(dataKey)
	if err != nil {
		return nil, err
	}
	return open(aead, p.Ciphertext, []byte(submissionID))
}

// ValueHasher implements application.ValueHasher with HMAC-SHA256.
type ValueHasher struct {
	key []byte
	// oldKeys are the hashing keys of the old secret keys, for finding
	// values hashed before a rotation (HashValueUnderEveryKey).
	oldKeys [][]byte
	// macs keeps keyed HMACs for reuse: hmac.New hashes the key's pads
	// anew, a cost every submission would otherwise pay for each hashed
	// value.
	macs sync.Pool
}

// valueMAC is a keyed HMAC and the buffer its input is written from.
type valueMAC struct {
	mac hash.Hash
	in  []byte
}

// NewValueHasher hashes new values under the current key only. A rotation
// therefore changes the hash of every value: hashes recorded before and
// after it are not comparable (docs/operations.md: Key rotation), except
// through HashValueUnderEveryKey while the old key is configured.
func NewValueHasher(r Keyring) *ValueHasher {
	v := &ValueHasher{key: r.Current.Derive("value-hashes")}
	for _, k := range r.Old {
		v.oldKeys = append(v.oldKeys, k.Derive("value-hashes"))
	}
	return v
}

// HashValueUnderEveryKey implements application.EveryKeyHasher: value's
// hash under the current key, then under each old key.
func (v *ValueHasher) HashValueUnderEveryKey(formID, field, value string) []string {
	out := []string{v.HashValue(formID, field, value)}
	for _, key := range v.oldKeys {
		out = append(out, hashValueUnder(hmac.New(sha256.New, key), formID, field, value))
	}
	return out
}

func hashValueUnder(mac hash.Hash, formID, field, value string) string {
	mac.Write([]byte(formID))
	mac.Write([]byte{0})
	mac.Write([]byte(field))
	mac.Write([]byte{0})
	mac.Write([]byte(value))
	var sum [sha256.Size]byte
	return hex.EncodeToString(mac.Sum(sum[:0])[:16])
}

// HashValue returns 128 bits of HMAC(key, form id, field, value) in hex,
// each part followed by a zero byte but the last.
func (v *ValueHasher) HashValue(formID, field, value string) string {
	m, _ := v.macs.Get().(*valueMAC)
	if m == nil {
		m = &valueMAC{mac: hmac.New(sha256.New, v.key)}
	} else {
		m.mac.Reset()
	}
	m.in = append(append(append(append(append(m.in[:0], formID...), 0), field...), 0), value...)
	m.mac.Write(m.in)
	var sum [sha256.Size]byte
	out := hex.EncodeToString(m.mac.Sum(sum[:0])[:16])
	if cap(m.in) <= 64<<10 { // a huge value's buffer is not worth keeping
		v.macs.Put(m)
	}
	return out
}
