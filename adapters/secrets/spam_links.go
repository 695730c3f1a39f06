package secrets

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/formd/formd/application"
)

// SpamLinkPurpose names the key that signs the spam links of notification
// mails (Key.Derive): its own, so a spam link's MAC can never pass for a
// verification link's or a challenge's.
const SpamLinkPurpose = "spam-links"

// SpamLinkTokens implements application.SpamLinkTokens: a token is
// "<key id>.<base64url(form id:submission id:expiry unix)>.<base64url(MAC)>",
// the MAC HMAC-SHA256 over the middle part's bytes under the link key
// derived from the key named. Links signed under an older key of the ring
// keep working until that key is retired.
type SpamLinkTokens struct {
	current string
	keys    map[string][]byte // by key id
}

// NewSpamLinkTokens derives a spam link key from each key of the ring.
func NewSpamLinkTokens(r Keyring) *SpamLinkTokens {
	t := &SpamLinkTokens{current: r.Current.ID(), keys: map[string][]byte{}}
	for _, k := range r.All() {
		t.keys[k.ID()] = k.Derive(SpamLinkPurpose)
	}
	return t
}

func spamLinkMAC(key, payload []byte) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write(payload)
	return mac.Sum(nil)
}

// Token signs l under the current key.
func (t *SpamLinkTokens) Token(l application.SpamLink) string {
	payload := []byte(l.FormID + ":" + l.SubmissionID + ":" + strconv.FormatInt(l.Expires.Unix(), 10))
	enc := base64.RawURLEncoding
	return t.current + "." + enc.EncodeToString(payload) + "." + enc.EncodeToString(spamLinkMAC(t.keys[t.current], payload))
}

// Read checks the token's MAC in constant time under the key it names and
// returns what it names.
func (t *SpamLinkTokens) Read(token string) (application.SpamLink, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return application.SpamLink{}, application.ErrBadSpamLink
	}
	key, ok := t.keys[parts[0]]
	if !ok {
		return application.SpamLink{}, application.ErrBadSpamLink
	}
	enc := base64.RawURLEncoding
	payload, err := enc.DecodeString(parts[1])
	if err != nil {
		return application.SpamLink{}, application.ErrBadSpamLink
	}
	mac, err := enc.DecodeString(parts[2])
	if err != nil || !hmac.Equal(mac, spamLinkMAC(key, payload)) {
		return application.SpamLink{}, application.ErrBadSpamLink
	}
	fields := strings.Split(string(payload), ":")
	if len(fields) != 3 || fields[0] == "" || fields[1] == "" {
		return application.SpamLink{}, application.ErrBadSpamLink
	}
	expires, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		return application.SpamLink{}, application.ErrBadSpamLink
	}
	return application.SpamLink{FormID: fields[0], SubmissionID: fields[1], Expires: time.Unix(expires, 0).UTC()}, nil
}
