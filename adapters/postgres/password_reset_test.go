package postgres_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
)

// A password reset ends every session of the account in its own
// transaction: when the reset fails, the sessions live on; when it commits,
// none of them does, and the account reads as verified with the new hash.
func TestUnitOfWorkPasswordResetEndsEverySessionInItsTransaction(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	claimed, other := uuid.NewString(), uuid.NewString()
	now := time.Now()
	for _, id := range []string{claimed, other} {
		e.run(t, func(tx application.Tx) error {
			a, err := account.Register(account.Registration{AccountID: id, Email: id + "@example.com", PasswordHash: "$old", WorkspaceID: uuid.NewString()}, now)
			if err != nil {
				return err
			}
			return tx.SaveAccount(e.ctx, a)
		})
	}
	sessions := map[string]string{"first": claimed, "second": claimed, "others": other}
	e.run(t, func(tx application.Tx) error {
		for token, id := range sessions {
			if err := tx.CreateSession(e.ctx, application.HashSecret(token+claimed), id, now.Add(time.Hour)); err != nil {
				return err
			}
		}
		return nil
	})
	reset := func(tx application.Tx) error {
		a, err := tx.LoadAccount(e.ctx, claimed)
		if err != nil {
			return err
		}
		if err := a.ResetPassword("$new", time.Now()); err != nil {
			return err
		}
		if err := tx.SaveAccount(e.ctx, a); err != nil {
			return err
		}
		return tx.EndSessions(e.ctx, claimed)
	}
	live := func(token string) bool {
		_, err := e.read.SessionByTokenHash(e.ctx, application.HashSecret(token+claimed), time.Now())
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}

	failed := errors.New("a later step failed")
	if err := e.tx.InTx(e.ctx, testMetadata("reset"), func(tx application.Tx) error {
		if err := reset(tx); err != nil {
			return err
		}
		return failed
	}); !errors.Is(err, failed) {
		t.Fatalf("InTx = %v", err)
	}
	if !live("first") || !live("second") {
		t.Fatal("a failed reset ended sessions")
	}

	e.run(t, reset)
	if live("first") || live("second") {
		t.Error("a session of the account outlived its password reset")
	}
	if !live("others") {
		t.Error("the reset ended another account's session")
	}
	rec, err := e.read.AccountByEmail(e.ctx, claimed+"@example.com")
	if err != nil || !rec.EmailVerified {
		t.Errorf("accounts read model %+v, %v; want the email verified", rec, err)
	}
	e.run(t, func(tx application.Tx) error {
		a, err := tx.LoadAccount(e.ctx, claimed)
		if err == nil && (a.PasswordHash() != "$new" || !a.EmailVerified()) {
			t.Errorf("reloaded account: hash %q, verified %v", a.PasswordHash(), a.EmailVerified())
		}
		return err
	})
}
