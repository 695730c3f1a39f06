package altcha_test

import (
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/formd/formd/domain/altcha"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func TestAChallengeHashesItsSaltAndNumber(t *testing.T) {
	c := altcha.NewChallenge("0a1b2c", 42, now.Add(altcha.Lifetime))
	if c.Salt != "0a1b2c?expires=1795349400" || c.Algorithm != "SHA-256" || c.MaxNumber != 50_000 {
		t.Fatalf("challenge %+v", c)
	}
	// echo -n '0a1b2c?expires=179534940042' | sha256sum
	if want := "780306b8776baf0c966c5153ea1ba31aa3e35b7bd01b245b06a11f924fd44d48"; altcha.Hash(c.Salt, 42) != c.Challenge || c.Challenge != want {
		t.Fatalf("challenge %s, want %s", c.Challenge, want)
	}
}

func encode(json string) string { return base64.StdEncoding.EncodeToString([]byte(json)) }

func TestSolutions(t *testing.T) {
	c := altcha.NewChallenge("0a1b2c", 42, now.Add(altcha.Lifetime))
	good := `{"algorithm":"SHA-256","challenge":"` + c.Challenge + `","number":42,"salt":"` + c.Salt + `","signature":"sig","took":120}`
	tests := []struct {
		name      string
		field     string
		at        time.Time
		wantParse error
		wantCheck error
	}{
		{"a solution", encode(good), now, nil, nil},
		{"unpadded URL-safe base64", base64.RawURLEncoding.EncodeToString([]byte(good)), now, nil, nil},
		{"a second before expiry", encode(good), now.Add(altcha.Lifetime - time.Second), nil, nil},
		{"at its expiry", encode(good), now.Add(altcha.Lifetime), nil, altcha.ErrExpired},
		{"the wrong number", encode(`{"algorithm":"SHA-256","challenge":"` + c.Challenge + `","number":41,"salt":"` + c.Salt + `","signature":"sig"}`), now, nil, altcha.ErrInvalid},
		{"another algorithm", encode(`{"algorithm":"SHA-1","challenge":"` + c.Challenge + `","number":42,"salt":"` + c.Salt + `","signature":"sig"}`), now, nil, altcha.ErrInvalid},
		{"a salt with another expiry", encode(`{"algorithm":"SHA-256","challenge":"` + c.Challenge + `","number":42,"salt":"0a1b2c?expires=1895349400","signature":"sig"}`), now, nil, altcha.ErrInvalid},
		{"a salt without expiry", encode(`{"algorithm":"SHA-256","challenge":"` + altcha.Hash("0a1b2c", 42) + `","number":42,"salt":"0a1b2c","signature":"sig"}`), now, nil, altcha.ErrInvalid},
		{"a negative number", encode(`{"algorithm":"SHA-256","challenge":"x","number":-1,"salt":"s","signature":"sig"}`), now, altcha.ErrInvalid, nil},
		{"a number beyond maxnumber", encode(`{"algorithm":"SHA-256","challenge":"x","number":50001,"salt":"s","signature":"sig"}`), now, altcha.ErrInvalid, nil},
		{"a fractional number", encode(`{"algorithm":"SHA-256","challenge":"x","number":4.2,"salt":"s","signature":"sig"}`), now, altcha.ErrInvalid, nil},
		{"no signature", encode(`{"algorithm":"SHA-256","challenge":"x","number":1,"salt":"s"}`), now, altcha.ErrInvalid, nil},
		{"not JSON", encode(`number=42`), now, altcha.ErrInvalid, nil},
		{"not base64", "!!!", now, altcha.ErrInvalid, nil},
		{"far too long", encode(good + string(make([]byte, 2048))), now, altcha.ErrInvalid, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := altcha.ParseSolution(tt.field)
			if !errors.Is(err, tt.wantParse) {
				t.Fatalf("ParseSolution = %+v, %v; want %v", s, err, tt.wantParse)
			}
			if err != nil {
				return
			}
			if err := s.Check(tt.at); !errors.Is(err, tt.wantCheck) {
				t.Fatalf("Check = %v, want %v", err, tt.wantCheck)
			}
		})
	}
}
