package secrets

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// ChallengePurpose names the key that signs proof-of-work challenges: it is
// HMAC-SHA256(FORMD_SECRET_KEY, "formd/" + ChallengePurpose), like every key
// derived from the server secret (Key.Derive).
const ChallengePurpose = "altcha-challenges"

// ChallengeSigner implements application.ChallengeSigner: the ALTCHA
// signature, hex(HMAC-SHA256(key, challenge)), under a key derived from the
// current server key. Challenges signed under an older key of the ring
// still verify, so a rotation does not refuse the few minutes of
// challenges issued just before it.
type ChallengeSigner struct {
	keys [][]byte // the current key's first
}

// NewChallengeSigner derives a signing key from each key of the ring.
func NewChallengeSigner(r Keyring) *ChallengeSigner {
	s := &ChallengeSigner{}
	for _, k := range r.All() {
		s.keys = append(s.keys, k.Derive(ChallengePurpose))
	}
	return s
}

func sign(key []byte, challenge string) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(challenge))
	return mac.Sum(nil)
}

// Sign signs under the current key.
func (s *ChallengeSigner) Sign(challenge string) string {
	return hex.EncodeToString(sign(s.keys[0], challenge))
}

// Verify compares in constant time under every accepted key.
func (s *ChallengeSigner) Verify(challenge, signature string) bool {
	got, err := hex.DecodeString(signature)
	if err != nil {
		return false
	}
	for _, k := range s.keys {
		if hmac.Equal(got, sign(k, challenge)) {
			return true
		}
	}
	return false
}
