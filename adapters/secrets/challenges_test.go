package secrets_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/formd/formd/adapters/secrets"
)

func TestChallengeSignatures(t *testing.T) {
	s := secrets.NewChallengeSigner(ring(t, key(1)))
	sig := s.Sign("abc")
	changed := []byte(sig)
	changed[0] = map[bool]byte{true: '1', false: '0'}[changed[0] == '0'] // another hex digit
	// The ALTCHA signature: hex(HMAC-SHA256(derived key, challenge)), the
	// key derived as README documents it.
	derive := hmac.New(sha256.New, key(1))
	derive.Write([]byte("formd/" + secrets.ChallengePurpose))
	mac := hmac.New(sha256.New, derive.Sum(nil))
	mac.Write([]byte("abc"))
	if want := hex.EncodeToString(mac.Sum(nil)); sig != want {
		t.Fatalf("Sign = %s, want %s", sig, want)
	}
	if !s.Verify("abc", sig) {
		t.Fatal("its own signature does not verify")
	}
	for name, tt := range map[string][2]string{
		"another challenge":   {"abd", sig},
		"a changed signature": {"abc", string(changed)},
		"not hex":             {"abc", "zz"},
		"empty":               {"abc", ""},
		"another key's":       {"abc", secrets.NewChallengeSigner(ring(t, key(2))).Sign("abc")},
	} {
		if s.Verify(tt[0], tt[1]) {
			t.Errorf("%s verified", name)
		}
	}
	rotated := secrets.NewChallengeSigner(ring(t, key(2), key(1)))
	if !rotated.Verify("abc", sig) || rotated.Sign("abc") == sig {
		t.Fatal("after a rotation, the old key's challenges verify and new ones are signed under the new key")
	}
}
