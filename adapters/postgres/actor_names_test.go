package postgres_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/application"
)

// The trail names an account by its email as it is when read, and a token
// by the name and prefix it was created with, also once revoked; ids it
// does not know, or that are not ids at all, are simply absent.
func TestActorNamesReadCurrentEmailsAndTokenNames(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	accountID, _ := e.seedForm(t)
	otherID, _ := e.seedForm(t)
	live, _ := e.seedToken(t, accountID, hexOf(application.HashSecret("fdw_live")), nil)
	revoked, ws := e.seedToken(t, otherID, hexOf(application.HashSecret("fdw_revoked")), nil)
	e.run(t, func(tx application.Tx) error {
		a, err := tx.LoadAccount(e.ctx, otherID)
		if err != nil {
			return err
		}
		if err := a.RevokeToken(ws, revoked, time.Now()); err != nil {
			return err
		}
		return tx.SaveAccount(e.ctx, a)
	})
	if _, err := e.pool.Exec(e.ctx, `UPDATE accounts SET email = 'renamed-'||email WHERE id = $1`, accountID); err != nil {
		t.Fatal(err)
	}

	known, err := e.read.ActorNames(e.ctx, application.ActorNameQuery{
		AccountIDs: []string{accountID, otherID, uuid.NewString(), "operator"},
		TokenIDs:   []string{live, revoked, uuid.NewString()},
		OwnerIDs:   []string{accountID, otherID},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(known.Emails) != 2 || known.Emails[accountID] != "renamed-"+accountID+"@example.com" || known.Emails[otherID] != otherID+"@example.com" {
		t.Fatalf("emails = %v", known.Emails)
	}
	want := application.TokenName{Name: "CI", Prefix: "fdw_abcdefgh"}
	if len(known.Tokens) != 2 || known.Tokens[live] != want || known.Tokens[revoked] != want {
		t.Fatalf("tokens = %v", known.Tokens)
	}

	// A token is found only through the stream of the account that made it.
	known, err = e.read.ActorNames(e.ctx, application.ActorNameQuery{TokenIDs: []string{revoked}, OwnerIDs: []string{accountID}})
	if err != nil || len(known.Tokens) != 0 || len(known.Emails) != 0 {
		t.Fatalf("a token of another account's stream: %+v, %v", known, err)
	}
}
