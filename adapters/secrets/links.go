package secrets

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// LinkTokens implements application.LinkTokens with HMAC-SHA256 under keys
// derived from the keyring.
type LinkTokens struct {
	current string
	keys    map[string][]byte // by key id
	order   []string          // key ids, the current one first
}

// NewLinkTokens derives a link key from each key of the ring.
func NewLinkTokens(r Keyring) *LinkTokens {
	l := &LinkTokens{current: r.Current.ID(), keys: map[string][]byte{}}
	for _, k := range r.All() {
		l.keys[k.ID()] = k.Derive("verification-links")
		l.order = append(l.order, k.ID())
	}
	return l
}

// linkKeySeparator joins key id and MAC; base64url never contains it, so a
// token without it is one issued before key ids existed.
const linkKeySeparator = "."

func (l *LinkTokens) token(id, verificationID string) string {
	mac := hmac.New(sha256.New, l.keys[id])
	mac.Write([]byte(verificationID))
	return id + linkKeySeparator + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// Token is "<key id>.<base64url(HMAC(link key, verification id))>" under the
// current key.
func (l *LinkTokens) Token(verificationID string) string { return l.token(l.current, verificationID) }

// Tokens is the verification's token under each accepted key, the current
// key's first, and each in the form without a key id that formd issued
// before key ids existed.
func (l *LinkTokens) Tokens(verificationID string) []string {
	var out []string
	for _, id := range l.order {
		out = append(out, l.token(id, verificationID))
	}
	for _, id := range l.order {
		_, legacy, _ := strings.Cut(l.token(id, verificationID), linkKeySeparator)
		out = append(out, legacy)
	}
	return out
}

// Verify reports whether token was made for verificationID by a key formd
// still accepts. A token without a key id (issued before key ids existed) is
// checked against every accepted key.
func (l *LinkTokens) Verify(verificationID, token string) bool {
	for _, t := range l.Tokens(verificationID) {
		if hmac.Equal([]byte(t), []byte(token)) {
			return true
		}
	}
	return false
}
