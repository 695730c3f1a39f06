package application

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
)

// signInWorld is one account with a password, and the sessions made for it.
type signInWorld struct {
	Tx
	ReadModel
	acc      *account.Account
	sessions [][]byte
	ended    [][]byte
	verified []string // every hash a password was checked against
}

func (w *signInWorld) InTx(_ context.Context, _ Metadata, fn func(Tx) error) error { return fn(w) }
func (w *signInWorld) LoadAccount(_ context.Context, id string) (*account.Account, error) {
	if w.acc.ID() != id {
		return nil, domain.ErrNotFound
	}
	return w.acc, nil
}
func (w *signInWorld) CreateSession(_ context.Context, hash []byte, _ string, _ time.Time) error {
	w.sessions = append(w.sessions, hash)
	return nil
}
func (w *signInWorld) EndSession(_ context.Context, hash []byte) error {
	w.ended = append(w.ended, hash)
	return nil
}
func (w *signInWorld) AccountByEmail(_ context.Context, email string) (AccountRecord, error) {
	if email != w.acc.Email() {
		return AccountRecord{}, domain.ErrNotFound
	}
	return AccountRecord{ID: w.acc.ID(), Email: w.acc.Email()}, nil
}
func (w *signInWorld) Hash(pw string) (string, error) { return "hash:" + pw, nil }
func (w *signInWorld) Verify(pw, encoded string) (bool, error) {
	w.verified = append(w.verified, encoded)
	return encoded == "hash:"+pw, nil
}

func newSignInWorld(t *testing.T) *signInWorld {
	acc, err := account.Register(account.Registration{AccountID: "acc-1", Email: "Person@Example.com",
		PasswordHash: "hash:" + strings.Repeat("p", 12), WorkspaceID: "ws-1"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return &signInWorld{acc: acc}
}

func TestSignInIssuesASessionForTheAccountsPassword(t *testing.T) {
	w := newSignInWorld(t)
	h := NewSignInHandler(w, w, w, fixedClock{})
	out, err := h.Handle(context.Background(), SignIn{Email: " person@example.COM ", Password: strings.Repeat("p", 12)})
	if err != nil {
		t.Fatal(err)
	}
	if out.AccountID != "acc-1" || !strings.HasPrefix(out.SessionToken, "fds_") || !out.VerificationRequired {
		t.Errorf("signed in = %+v", out)
	}
	if len(w.sessions) != 1 || string(w.sessions[0]) != string(HashSecret(out.SessionToken)) {
		t.Errorf("sessions stored = %x, want the hash of the token", w.sessions)
	}
}

// A wrong password and an unknown address get the same answer, after the
// same work: a password check each.
func TestSignInRefusesAWrongPasswordAndAnUnknownAddressAlike(t *testing.T) {
	w := newSignInWorld(t)
	h := NewSignInHandler(w, w, w, fixedClock{})
	for _, cmd := range []SignIn{
		{Email: "person@example.com", Password: "not the password"},
		{Email: "nobody@example.com", Password: "not the password"},
	} {
		w.verified = nil
		_, err := h.Handle(context.Background(), cmd)
		if !errors.Is(err, ErrWrongCredentials) {
			t.Errorf("%s: err = %v, want ErrWrongCredentials", cmd.Email, err)
		}
		if len(w.verified) != 1 {
			t.Errorf("%s: %d password checks, want 1", cmd.Email, len(w.verified))
		}
	}
	if len(w.sessions) != 0 {
		t.Errorf("sessions were made: %x", w.sessions)
	}
}

func TestSignInAsksForBothFields(t *testing.T) {
	w := newSignInWorld(t)
	h := NewSignInHandler(w, w, w, fixedClock{})
	for field, cmd := range map[string]SignIn{"email": {Password: "x"}, "password": {Email: "person@example.com"}} {
		var invalid *domain.InvalidInputError
		if _, err := h.Handle(context.Background(), cmd); !errors.As(err, &invalid) || invalid.Field != field {
			t.Errorf("without %s: err = %v", field, err)
		}
	}
}

// hmacLikeHasher stands in for the keyed value hasher: a different key
// gives different hashes.
type hmacLikeHasher struct{ key string }

func (h hmacLikeHasher) HashValue(formID, field, value string) string {
	return hexHash(h.key + "\x00" + formID + "\x00" + field + "\x00" + value)
}

func TestRequestForgeryTokensBelongToOneSessionAndOneKey(t *testing.T) {
	tokens := NewRequestForgeryTokenHandler(hmacLikeHasher{key: "k1"})
	a, b := NewSecret("fds_"), NewSecret("fds_")
	if tokens.Token(a) == tokens.Token(b) {
		t.Fatal("two sessions share a CSRF token")
	}
	if !tokens.Valid(a, tokens.Token(a)) {
		t.Error("a session's own token is refused")
	}
	for name, tc := range map[string][2]string{
		"another session's": {a, tokens.Token(b)},
		"empty":             {a, ""},
		"no session":        {"", tokens.Token("")},
		"another key's":     {a, NewRequestForgeryTokenHandler(hmacLikeHasher{key: "k2"}).Token(a)},
		"truncated":         {a, tokens.Token(a)[:10]},
	} {
		if tokens.Valid(tc[0], tc[1]) {
			t.Errorf("%s token accepted", name)
		}
	}
}

func TestSignOutEndsOnlyTheSessionItCameWith(t *testing.T) {
	w := newSignInWorld(t)
	token := NewSecret("fds_")
	auth := NewAuthenticateHandler(sessionsOf{w: w, token: token}, nil0Tokens{}, fixedClock{})
	h := NewSignOutHandler(w, auth)
	if err := h.Handle(context.Background(), SignOut{SessionToken: token}); err != nil {
		t.Fatal(err)
	}
	if len(w.ended) != 1 || string(w.ended[0]) != string(HashSecret(token)) {
		t.Errorf("ended %x, want the hash of the token", w.ended)
	}
	if err := h.Handle(context.Background(), SignOut{SessionToken: "fds_unknown"}); err != nil {
		t.Errorf("an unknown session: err = %v, want none", err)
	}
	if len(w.ended) != 1 {
		t.Errorf("an unknown session ended something: %x", w.ended)
	}
}

// sessionsOf knows one session token.
type sessionsOf struct {
	ReadModel
	w     *signInWorld
	token string
}

func (s sessionsOf) SessionByTokenHash(_ context.Context, hash []byte, _ time.Time) (AccountRecord, error) {
	if string(hash) != string(HashSecret(s.token)) {
		return AccountRecord{}, domain.ErrNotFound
	}
	return AccountRecord{ID: s.w.acc.ID()}, nil
}

// nil0Tokens knows no workspace token.
type nil0Tokens struct{ WorkspaceTokens }
