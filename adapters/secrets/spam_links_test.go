package secrets_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/secrets"
	"github.com/formd/formd/application"
)

func TestSpamLinkTokens(t *testing.T) {
	l := application.SpamLink{FormID: "0b7e4c1a-0000-4000-8000-000000000001", SubmissionID: "0b7e4c1a-0000-4000-8000-000000000002",
		Expires: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	tokens := secrets.NewSpamLinkTokens(ring(t, key(1)))
	token := tokens.Token(l)
	got, err := tokens.Read(token)
	if err != nil || got != l {
		t.Fatalf("Read(Token(l)) = %+v, %v; want %+v", got, err, l)
	}
	if strings.Contains(token, l.FormID) {
		t.Error("the token is meant to be opaque in a URL path, not a list of ids")
	}

	keyID, rest, _ := strings.Cut(token, ".")
	payload, mac, _ := strings.Cut(rest, ".")
	other := tokens.Token(application.SpamLink{FormID: l.FormID, SubmissionID: "another", Expires: l.Expires})
	_, otherRest, _ := strings.Cut(other, ".")
	otherPayload, _, _ := strings.Cut(otherRest, ".")
	flipped := []byte(mac)
	flipped[0] = map[bool]byte{true: 'B', false: 'A'}[flipped[0] == 'A']
	for name, bad := range map[string]string{
		"another submission under this MAC": keyID + "." + otherPayload + "." + mac,
		"an altered MAC":                    keyID + "." + payload + "." + string(flipped),
		"an unknown key id":                 "00000000." + payload + "." + mac,
		"another server's":                  secrets.NewSpamLinkTokens(ring(t, key(2))).Token(l),
		"no MAC":                            keyID + "." + payload,
		"empty":                             "",
		"not base64":                        keyID + ".!!." + mac,
	} {
		if _, err := tokens.Read(bad); !errors.Is(err, application.ErrBadSpamLink) {
			t.Errorf("%s: Read err = %v, want ErrBadSpamLink", name, err)
		}
	}

	rotated := secrets.NewSpamLinkTokens(ring(t, key(2), key(1)))
	if got, err := rotated.Read(token); err != nil || got != l {
		t.Errorf("after a rotation an old link reads %+v, %v", got, err)
	}
	if retired := secrets.NewSpamLinkTokens(ring(t, key(2))); func() bool { _, err := retired.Read(token); return err == nil }() {
		t.Error("a link of a retired key still reads")
	}
}
