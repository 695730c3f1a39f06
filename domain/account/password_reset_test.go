package account_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/formd/formd/domain/account"
)

// The owner of a mailbox takes back an account someone else registered under
// its address: the reset replaces the registrant's password and verifies the
// email in the same change.
func TestResetPasswordTakesTheAccountBack(t *testing.T) {
	a := accountRegistered(t) // registered with someone's password, unverified
	at := accountT0.Add(time.Hour)
	if err := a.ResetPassword("$argon2id$owner", at); err != nil {
		t.Fatal(err)
	}
	if a.PasswordHash() != "$argon2id$owner" || !a.EmailVerified() {
		t.Errorf("after reset: hash %q verified %v, want the owner's hash and a verified email", a.PasswordHash(), a.EmailVerified())
	}
	want := []account.Event{
		account.PasswordReset{PasswordHash: "$argon2id$owner", At: at.UTC()},
		account.EmailVerified{At: at.UTC()},
	}
	if got := a.Changes()[1:]; !reflect.DeepEqual(got, want) {
		t.Errorf("recorded %+v, want %+v", got, want)
	}
	loaded, err := account.FromHistory(a.Changes())
	if err != nil {
		t.Fatal(err)
	}
	if loaded.PasswordHash() != "$argon2id$owner" || !loaded.EmailVerified() {
		t.Error("a reloaded account lost the reset")
	}
}

func TestResetPasswordOfAVerifiedAccountRecordsOnlyTheReset(t *testing.T) {
	a := accountRegistered(t)
	a.VerifyEmail(accountT0)
	loaded, _ := account.FromHistory(a.Changes())
	if err := loaded.ResetPassword("$argon2id$new", accountT0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got := loaded.Changes(); len(got) != 1 || got[0].EventType() != account.PasswordResetType {
		t.Errorf("recorded %+v, want only the reset", got)
	}
}

func TestResetPasswordRefusesAnEmptyHash(t *testing.T) {
	a := accountRegistered(t)
	if err := a.ResetPassword("", accountT0); err == nil || len(a.Changes()) != 1 {
		t.Errorf("ResetPassword(\"\") = %v, recorded %+v; want an error and nothing recorded", err, a.Changes()[1:])
	}
}

// Whoever held the account before its owner took it back may have made
// workspace API tokens: the reset deletes every one of them.
func TestResetPasswordDeletesEveryToken(t *testing.T) {
	a, err := account.FromHistory([]account.Event{
		account.Registered{AccountID: "acct-1", Email: "ada@example.com", WorkspaceID: "ws-1"},
		account.EmailVerified{},
		account.WorkspaceCreated{WorkspaceID: "ws-2"},
		account.TokenCreated{TokenID: "tok-b", WorkspaceID: "ws-2"},
		account.TokenCreated{TokenID: "tok-a", WorkspaceID: "ws-1"},
		account.TokenCreated{TokenID: "tok-gone", WorkspaceID: "ws-1"},
		account.TokenRevoked{TokenID: "tok-gone"},
	})
	if err != nil {
		t.Fatal(err)
	}
	at := accountT0.Add(time.Hour)
	if err := a.ResetPassword("$argon2id$owner", at); err != nil {
		t.Fatal(err)
	}
	want := []account.Event{
		account.PasswordReset{PasswordHash: "$argon2id$owner", At: at.UTC()},
		account.TokenRevoked{TokenID: "tok-a", At: at.UTC()},
		account.TokenRevoked{TokenID: "tok-b", At: at.UTC()},
	}
	if !reflect.DeepEqual(a.Changes(), want) {
		t.Errorf("recorded %+v\nwant %+v", a.Changes(), want)
	}
	if err := a.RevokeToken("ws-1", "tok-a", at); err == nil {
		t.Error("a token deleted by the reset can be deleted again")
	}
}
