package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/application"
	"github.com/formd/formd/application/uowtest"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// What every application.Transactor must guarantee is application/uowtest's
// suite (uow_suite_test.go); these tests add what only PostgreSQL's keeps:
// the read models and the Watermill messages written in the same
// transaction.

// uowEnv is one fresh database with a transactor and the read side on it.
type uowEnv struct {
	ctx  context.Context
	pool *pgxpool.Pool
	tx   *postgres.Transactor
	read *postgres.ReadModel
}

func newUoWEnv(t *testing.T) uowEnv {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	pool := pgtest.Open(t)
	store := postgres.NewEventStore()
	return uowEnv{ctx: ctx, pool: pool, tx: postgres.NewTransactor(pool, store, wallClock{}), read: postgres.NewReadModel(pool, store)}
}

func (e uowEnv) run(t *testing.T, fn func(application.Tx) error) {
	t.Helper()
	if err := e.tx.InTx(e.ctx, testMetadata("uow"), fn); err != nil {
		t.Fatalf("InTx: %v", err)
	}
}

// seedForm registers a verified account and creates a form of it.
func (e uowEnv) seedForm(t *testing.T) (accountID, formID string) {
	t.Helper()
	return uowtest.SeedForm(t, e.ctx, e.tx)
}

func (e uowEnv) loadForm(t *testing.T, id string) *form.Form {
	t.Helper()
	return uowtest.LoadForm(t, e.ctx, e.tx, id)
}

func ptr[T any](v T) *T { return &v }

// The read models the API reads back at once follow each aggregate's
// stream in the unit of work's own transaction.
func TestUnitOfWorkReadModelsFollowTheStreams(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	accountID, formID := e.seedForm(t)
	wsID, verificationID := uuid.NewString(), uuid.NewString()
	e.run(t, func(tx application.Tx) error {
		f, err := tx.LoadForm(e.ctx, formID)
		if err != nil {
			return err
		}
		if err := f.ChangeSettings(form.Patch{AllowedDomains: ptr([]string{"example.com"}),
			Validation: ptr(form.ValidationSettings{Fields: []form.FieldRule{{Field: "email", Required: true, Type: "email"}}})},
			form.Policy{}, time.Now()); err != nil {
			return err
		}
		if err := f.MarkRecipientVerified("owner@example.com", time.Now()); err != nil {
			return err
		}
		if err := tx.SaveForm(e.ctx, f); err != nil {
			return err
		}
		a, err := tx.LoadAccount(e.ctx, accountID)
		if err != nil {
			return err
		}
		if err := a.AddWorkspace(wsID, "Side", time.Now()); err != nil {
			return err
		}
		if err := tx.SaveAccount(e.ctx, a); err != nil {
			return err
		}
		v, err := verification.Request(verification.Requested{VerificationID: verificationID, Kind: verification.KindRecipient,
			SubjectID: formID, AccountID: accountID, Email: "owner@example.com", TokenHash: "cd" + accountID[:8],
			DeliveryID: uuid.NewString()}, time.Now())
		if err != nil {
			return err
		}
		if err := v.Complete(time.Now(), true); err != nil {
			return err
		}
		return tx.SaveVerification(e.ctx, v)
	})
	rec, err := e.read.FormByID(e.ctx, formID)
	if err != nil || rec.Version != 3 || !rec.RecipientVerified || rec.Settings.Validation.Fields[0].Field != "email" ||
		rec.Settings.AllowedDomains[0] != "example.com" {
		t.Fatalf("forms read model %+v (%v) does not follow the stream", rec, err)
	}
	acc, err := e.read.AccountByEmail(e.ctx, accountID+"@example.com")
	if err != nil || acc.ID != accountID || !acc.EmailVerified {
		t.Fatalf("accounts read model %+v, %v", acc, err)
	}
	spaces, err := e.read.WorkspacesByAccount(e.ctx, accountID)
	if err != nil || len(spaces) != 2 {
		t.Fatalf("workspaces read model %+v, %v; want the default and the added one", spaces, err)
	}
	ver, err := e.read.LatestVerification(e.ctx, verification.KindRecipient, formID)
	if err != nil || ver.ID != verificationID || ver.Status != verification.StatusVerified {
		t.Fatalf("verifications read model %+v, %v", ver, err)
	}
}

func TestUnitOfWorkKeepsNothingOfAFailedCommand(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	_, formID := e.seedForm(t)
	boom := errors.New("boom")
	err := e.tx.InTx(e.ctx, testMetadata("fails"), func(tx application.Tx) error {
		f, err := tx.LoadForm(e.ctx, formID)
		if err != nil {
			return err
		}
		if err := f.ChangeSettings(form.Patch{Name: ptr("Never")}, form.Policy{}, time.Now()); err != nil {
			return err
		}
		if err := tx.SaveForm(e.ctx, f); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx = %v, want the command's error", err)
	}
	if f := e.loadForm(t, formID); f.Version() != 1 || f.Settings().Name != "Contact" {
		t.Fatalf("the failed command left version %d, name %q", f.Version(), f.Settings().Name)
	}
	if rec, err := e.read.FormByID(e.ctx, formID); err != nil || rec.Version != 1 || rec.Settings.Name != "Contact" {
		t.Fatalf("the failed command changed the read model: %+v, %v", rec, err)
	}
	var messages int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM watermill_form`).Scan(&messages); err != nil || messages != 1 {
		t.Fatalf("%d form messages published (%v), want only the creation's", messages, err)
	}
}

// wallClock is the real time; the adapter's tests import no other adapter.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }
