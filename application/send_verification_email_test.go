package application

import (
	"errors"
	"strings"
	"testing"

	"github.com/formd/formd/domain/verification"
)

// rotatedTokens is a formd whose current key is "new" and whose old key,
// still accepted, is "old".
type rotatedTokens struct{}

func (rotatedTokens) Token(id string) string    { return "new." + id }
func (rotatedTokens) Tokens(id string) []string { return []string{"new." + id, "old." + id} }
func (r rotatedTokens) Verify(id, token string) bool {
	return token == "new."+id || token == "old."+id
}

// A verification requested just before a key rotation gets its mail from a
// formd with the new key: the mail must carry the token the verification was
// requested with (its hash is what the link is looked up by), not a fresh
// one under the new key, which would lead nowhere.
func TestAVerificationMailCarriesTheTokenItWasRequestedWith(t *testing.T) {
	v := VerificationRecord{ID: "v1", Kind: verification.KindAccount, Email: "ada@example.com", TokenHash: HashSecret("old.v1")}
	token, err := requestedToken(rotatedTokens{}, v)
	if err != nil || token != "old.v1" {
		t.Fatalf("requestedToken = %q, %v; want the old key's token", token, err)
	}
	m := verificationMail(v, "d1", token, MailSettings{BaseURL: "https://formd.example/"}, testCatalogs(t))
	if !strings.Contains(m.Text, "https://formd.example/verify/old.v1\n") {
		t.Fatalf("mail %q; want the link https://formd.example/verify/old.v1", m.Text)
	}

	// Requested under a key formd no longer has: no link can work, so no
	// mail goes out, and the failure is final.
	v.TokenHash = HashSecret("retired.v1")
	if _, err := requestedToken(rotatedTokens{}, v); !errors.Is(err, ErrPermanent) {
		t.Fatalf("requestedToken = %v; want a permanent failure", err)
	}
}
