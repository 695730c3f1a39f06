package application

import (
	"context"
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

type sentMail struct{ mails []Mail }

func (s *sentMail) Send(_ context.Context, m Mail) error {
	s.mails = append(s.mails, m)
	return nil
}

// A verification requested just before a key rotation gets its mail from a
// formd with the new key: the mail must carry the token the verification was
// requested with (its hash is what the link is looked up by), not a fresh
// one under the new key, which would lead nowhere.
func TestAVerificationMailCarriesTheTokenItWasRequestedWith(t *testing.T) {
	mailer := &sentMail{}
	h := NewSendVerificationEmailHandler(mailer, rotatedTokens{}, MailSettings{BaseURL: "https://formd.example/"})
	e := verification.Requested{VerificationID: "v1", Kind: verification.KindAccount, Email: "ada@example.com",
		TokenHash: hexHash("old.v1"), DeliveryID: "d1"}
	if err := h.Handle(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if len(mailer.mails) != 1 || !strings.Contains(mailer.mails[0].Text, "https://formd.example/verify/old.v1\n") {
		t.Fatalf("mails %+v; want one with the link https://formd.example/verify/old.v1", mailer.mails)
	}

	// Requested under a key formd no longer has: no link can work, so no
	// mail goes out, and the failure is final.
	e.TokenHash = hexHash("retired.v1")
	if err := h.Handle(context.Background(), e); !errors.Is(err, ErrPermanent) || len(mailer.mails) != 1 {
		t.Fatalf("Handle = %v with %d mails; want a permanent failure and no new mail", err, len(mailer.mails))
	}
}
