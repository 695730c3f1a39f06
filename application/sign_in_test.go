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

// signInWorld is one account with a password in the in-memory unit of
// work, and the password checks made.
type signInWorld struct {
	*MemoryTransactor
	ReadModel
	acc      *account.Account
	verified []string // every hash a password was checked against
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
	m := NewMemoryTransactor()
	m.Seed(acc.ID(), anys(acc.Changes())...)
	return &signInWorld{MemoryTransactor: m, acc: acc}
}

// createSession stores a session as signing in would.
func (w *signInWorld) createSession(t *testing.T, token string) {
	t.Helper()
	ctx := context.Background()
	if err := w.InTx(ctx, Metadata{}, func(tx Tx) error {
		return tx.CreateSession(ctx, HashSecret(token), w.acc.ID(), time.Now().Add(time.Hour))
	}); err != nil {
		t.Fatal(err)
	}
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
	if owner, _, ok := w.Session(HashSecret(out.SessionToken)); w.SessionCount() != 1 || !ok || owner != "acc-1" {
		t.Errorf("%d sessions stored; want one under the hash of the token", w.SessionCount())
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
	if n := w.SessionCount(); n != 0 {
		t.Errorf("%d sessions were made", n)
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
	token, other := NewSecret("fds_"), NewSecret("fds_")
	w.createSession(t, token)
	w.createSession(t, other)
	auth := NewAuthenticateHandler(sessionsOf{w: w, token: token}, nil0Tokens{}, fixedClock{})
	h := NewSignOutHandler(w, auth)
	if err := h.Handle(context.Background(), SignOut{SessionToken: token}); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := w.Session(HashSecret(token)); ok || w.SessionCount() != 1 {
		t.Errorf("after signing out: the session is kept (%v), %d sessions; want only the other one left", ok, w.SessionCount())
	}
	if err := h.Handle(context.Background(), SignOut{SessionToken: "fds_unknown"}); err != nil {
		t.Errorf("an unknown session: err = %v, want none", err)
	}
	if _, _, ok := w.Session(HashSecret(other)); !ok {
		t.Error("an unknown session ended another one")
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
