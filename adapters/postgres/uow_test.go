package postgres_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// The unit-of-work suite: what every application.Transactor must guarantee,
// in the style of hallgren/eventsourcing's core/testsuite. Each aggregate
// round-trips through its stream (and its read model); concurrent commands
// on one stream both land, the loser after a retry on fresh state; a save
// against a version that moved on is refused; a failed command leaves
// nothing behind.

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
	accountID, wsID, formID := uuid.NewString(), uuid.NewString(), uuid.NewString()
	now := time.Now()
	e.run(t, func(tx application.Tx) error {
		a, err := account.Register(account.Registration{AccountID: accountID, Email: accountID + "@example.com", WorkspaceID: wsID}, now)
		if err != nil {
			return err
		}
		a.VerifyEmail(now)
		if err := tx.SaveAccount(e.ctx, a); err != nil {
			return err
		}
		f, err := form.Create(form.NewForm{ID: formID, AccountID: accountID, WorkspaceID: wsID,
			AccessKeyHash: "ab" + formID[:8], AccessKeyPrefix: "fk_" + formID[:4],
			Settings: form.Settings{Name: "Contact", RecipientEmail: "owner@example.com"}}, form.Policy{}, now)
		if err != nil {
			return err
		}
		return tx.SaveForm(e.ctx, f)
	})
	return accountID, formID
}

func (e uowEnv) loadForm(t *testing.T, id string) *form.Form {
	t.Helper()
	var f *form.Form
	e.run(t, func(tx application.Tx) (err error) {
		f, err = tx.LoadForm(e.ctx, id)
		return err
	})
	return f
}

func ptr[T any](v T) *T { return &v }

func TestUnitOfWorkFormRoundTrip(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	accountID, formID := e.seedForm(t)
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
		return tx.SaveForm(e.ctx, f)
	})
	f := e.loadForm(t, formID)
	s := f.Settings()
	if f.Version() != 3 || f.AccountID() != accountID || !f.RecipientVerified() || s.Name != "Contact" ||
		len(s.AllowedDomains) != 1 || len(s.Validation.Fields) != 1 || s.Validation.Fields[0].Type != "email" {
		t.Fatalf("reloaded form: version %d, account %s, verified %v, settings %+v", f.Version(), f.AccountID(), f.RecipientVerified(), s)
	}
	rec, err := e.read.FormByID(e.ctx, formID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version != 3 || !rec.RecipientVerified || rec.Settings.Validation.Fields[0].Field != "email" || rec.Settings.AllowedDomains[0] != "example.com" {
		t.Fatalf("forms read model %+v does not follow the stream", rec)
	}
}

func TestUnitOfWorkAccountRoundTrip(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	accountID, _ := e.seedForm(t)
	wsID := uuid.NewString()
	e.run(t, func(tx application.Tx) error {
		a, err := tx.LoadAccount(e.ctx, accountID)
		if err != nil {
			return err
		}
		if err := a.AddWorkspace(wsID, "Side", time.Now()); err != nil {
			return err
		}
		return tx.SaveAccount(e.ctx, a)
	})
	var a *account.Account
	e.run(t, func(tx application.Tx) (err error) {
		a, err = tx.LoadAccount(e.ctx, accountID)
		return err
	})
	if a.Version() != 3 || !a.EmailVerified() || !a.HasWorkspace(wsID) || a.Email() != accountID+"@example.com" {
		t.Fatalf("reloaded account: version %d, verified %v, has workspace %v, email %s", a.Version(), a.EmailVerified(), a.HasWorkspace(wsID), a.Email())
	}
	rec, err := e.read.AccountByEmail(e.ctx, accountID+"@example.com")
	if err != nil || rec.ID != accountID || !rec.EmailVerified {
		t.Fatalf("accounts read model %+v, %v", rec, err)
	}
	// The email is unique across accounts: a second registration is refused.
	err = e.tx.InTx(e.ctx, testMetadata("dup"), func(tx application.Tx) error {
		b, err := account.Register(account.Registration{AccountID: uuid.NewString(), Email: accountID + "@example.com", WorkspaceID: uuid.NewString()}, time.Now())
		if err != nil {
			return err
		}
		return tx.SaveAccount(e.ctx, b)
	})
	if !errors.Is(err, account.ErrEmailTaken) {
		t.Fatalf("second registration of one email = %v, want ErrEmailTaken", err)
	}
}

func TestUnitOfWorkVerificationRoundTrip(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	accountID, formID := e.seedForm(t)
	id, hash := uuid.NewString(), "cd"+accountID[:8]
	e.run(t, func(tx application.Tx) error {
		v, err := verification.Request(verification.Requested{VerificationID: id, Kind: verification.KindRecipient, SubjectID: formID,
			AccountID: accountID, Email: "owner@example.com", TokenHash: hash, DeliveryID: uuid.NewString()}, time.Now())
		if err != nil {
			return err
		}
		return tx.SaveVerification(e.ctx, v)
	})
	e.run(t, func(tx application.Tx) error {
		v, err := tx.LoadVerification(e.ctx, id)
		if err != nil {
			return err
		}
		if err := v.Complete(time.Now(), true); err != nil {
			return err
		}
		return tx.SaveVerification(e.ctx, v)
	})
	var v *verification.Verification
	e.run(t, func(tx application.Tx) (err error) {
		v, err = tx.LoadVerification(e.ctx, id)
		return err
	})
	if v.Version() != 2 || v.Status() != verification.StatusVerified || v.SubjectID != formID || v.Email != "owner@example.com" {
		t.Fatalf("reloaded verification: version %d, status %s, %+v", v.Version(), v.Status(), v.Requested)
	}
	rec, err := e.read.LatestVerification(e.ctx, verification.KindRecipient, formID)
	if err != nil || rec.ID != id || rec.Status != verification.StatusVerified {
		t.Fatalf("verifications read model %+v, %v", rec, err)
	}
}

func TestUnitOfWorkLoadOfAnUnknownStreamIsNotFound(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	err := e.tx.InTx(e.ctx, testMetadata("missing"), func(tx application.Tx) error {
		_, err := tx.LoadForm(e.ctx, uuid.NewString())
		return err
	})
	if !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("LoadForm(unknown) = %v, want domain.ErrNotFound", err)
	}
}

func TestUnitOfWorkConcurrentUpdatesBothLandAfterARetry(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	_, formID := e.seedForm(t)
	patches := []form.Patch{{SubjectDefault: ptr("From A")}, {RedirectDefault: ptr("https://example.com/b")}}
	var loaded sync.WaitGroup // both commands read version 1 before either saves
	loaded.Add(len(patches))
	var attempts atomic.Int32
	var wg sync.WaitGroup
	errs := make([]error, len(patches))
	for i, p := range patches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := true
			errs[i] = e.tx.InTx(e.ctx, testMetadata("concurrent"), func(tx application.Tx) error {
				attempts.Add(1)
				f, err := tx.LoadForm(e.ctx, formID)
				if err != nil {
					return err
				}
				if first {
					first = false
					loaded.Done()
					loaded.Wait()
				}
				if err := f.ChangeSettings(p, form.Policy{}, time.Now()); err != nil {
					return err
				}
				return tx.SaveForm(e.ctx, f)
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("command %d: %v", i, err)
		}
	}
	if n := attempts.Load(); n < 3 {
		t.Fatalf("%d attempts for two commands that raced on one version; want a retry", n)
	}
	f := e.loadForm(t, formID)
	if s := f.Settings(); f.Version() != 3 || s.SubjectDefault != "From A" || s.RedirectDefault != "https://example.com/b" {
		t.Fatalf("after both commands: version %d, settings %+v; want both changes at version 3", f.Version(), s)
	}
	rec, err := e.read.FormByID(e.ctx, formID)
	if err != nil || rec.Version != 3 || rec.Settings.SubjectDefault != "From A" || rec.Settings.RedirectDefault != "https://example.com/b" {
		t.Fatalf("read model after both commands: %+v, %v", rec, err)
	}
}

func TestUnitOfWorkRefusesAStaleVersion(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	_, formID := e.seedForm(t)
	var saves []error
	e.run(t, func(tx application.Tx) error {
		f, err := tx.LoadForm(e.ctx, formID)
		if err != nil {
			return err
		}
		if len(saves) == 0 { // another process changes the form after this load
			e.run(t, func(other application.Tx) error {
				g, err := other.LoadForm(e.ctx, formID)
				if err != nil {
					return err
				}
				if err := g.ChangeSettings(form.Patch{Name: ptr("Renamed elsewhere")}, form.Policy{}, time.Now()); err != nil {
					return err
				}
				return other.SaveForm(e.ctx, g)
			})
		}
		if err := f.ChangeSettings(form.Patch{SubjectDefault: ptr("Mine")}, form.Policy{}, time.Now()); err != nil {
			return err
		}
		err = tx.SaveForm(e.ctx, f)
		saves = append(saves, err)
		return err
	})
	if len(saves) != 2 || !errors.Is(saves[0], domain.ErrConcurrency) || saves[1] != nil {
		t.Fatalf("saves = %v; want the stale one refused with ErrConcurrency, then the retry to land", saves)
	}
	f := e.loadForm(t, formID)
	if s := f.Settings(); f.Version() != 3 || s.Name != "Renamed elsewhere" || s.SubjectDefault != "Mine" {
		t.Fatalf("version %d, settings %+v; want both changes", f.Version(), s)
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
