// Package uowtest is the unit-of-work suite: what every
// application.Transactor must guarantee, run against each implementation
// (PostgreSQL's and the application tests' in-memory one), in the style of
// hallgren/eventsourcing's core/testsuite. Each aggregate round-trips
// through its stream; concurrent commands on one stream both land, the
// loser after a retry on fresh state; a save against a version that moved
// on is refused; a failed command leaves nothing behind. Only tests import
// it.
package uowtest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// NewTransactor makes an implementation under test on an empty store of
// its own.
type NewTransactor func(t *testing.T) application.Transactor

// Run runs the suite against the implementations newTransactor makes, each
// case on a fresh one, in parallel.
func Run(t *testing.T, newTransactor NewTransactor) {
	for _, c := range []struct {
		name string
		run  func(*testing.T, NewTransactor)
	}{
		{"form round trip", formRoundTrip},
		{"account round trip", accountRoundTrip},
		{"verification round trip", verificationRoundTrip},
		{"load of an unknown stream is not found", loadOfAnUnknownStreamIsNotFound},
		{"concurrent updates both land after a retry", concurrentUpdatesBothLandAfterARetry},
		{"refuses a stale version", refusesAStaleVersion},
		{"keeps nothing of a failed command", keepsNothingOfAFailedCommand},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, newTransactor)
		})
	}
}

// env is one fresh store behind the transactor under test.
type env struct {
	ctx context.Context
	tx  application.Transactor
}

func newEnv(t *testing.T, newTransactor NewTransactor) env {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return env{ctx: ctx, tx: newTransactor(t)}
}

func metadata(requestID string) application.Metadata {
	return application.Metadata{Actor: application.Actor{Type: application.ActorSystem, ID: "uowtest"}, RequestID: requestID}
}

func (e env) run(t *testing.T, fn func(application.Tx) error) {
	t.Helper()
	if err := e.tx.InTx(e.ctx, metadata("uow"), fn); err != nil {
		t.Fatalf("InTx: %v", err)
	}
}

// seedForm registers a verified account and creates a form of it.
func (e env) seedForm(t *testing.T) (accountID, formID string) {
	t.Helper()
	return SeedForm(t, e.ctx, e.tx)
}

func (e env) loadForm(t *testing.T, id string) *form.Form {
	t.Helper()
	return LoadForm(t, e.ctx, e.tx, id)
}

// SeedForm registers a verified account through tx and creates a form of
// it, for tests of any Transactor that start from a form.
func SeedForm(t *testing.T, ctx context.Context, tx application.Transactor) (accountID, formID string) {
	t.Helper()
	accountID, wsID, formID := uuid.NewString(), uuid.NewString(), uuid.NewString()
	now := time.Now()
	err := tx.InTx(ctx, metadata("seed"), func(tx application.Tx) error {
		a, err := account.Register(account.Registration{AccountID: accountID, Email: accountID + "@example.com", WorkspaceID: wsID}, now)
		if err != nil {
			return err
		}
		a.VerifyEmail(now)
		if err := tx.SaveAccount(ctx, a); err != nil {
			return err
		}
		f, err := form.Create(form.NewForm{ID: formID, AccountID: accountID, WorkspaceID: wsID,
			AccessKeyHash: "ab" + formID[:8], AccessKeyPrefix: "fk_" + formID[:4],
			Settings: form.Settings{Name: "Contact", RecipientEmail: "owner@example.com"}}, form.Policy{}, now)
		if err != nil {
			return err
		}
		return tx.SaveForm(ctx, f)
	})
	if err != nil {
		t.Fatalf("seeding a form: %v", err)
	}
	return accountID, formID
}

// LoadForm loads the form id through tx.
func LoadForm(t *testing.T, ctx context.Context, tx application.Transactor, id string) *form.Form {
	t.Helper()
	var f *form.Form
	if err := tx.InTx(ctx, metadata("load"), func(tx application.Tx) (err error) {
		f, err = tx.LoadForm(ctx, id)
		return err
	}); err != nil {
		t.Fatalf("loading form %s: %v", id, err)
	}
	return f
}

func ptr[T any](v T) *T { return &v }

func formRoundTrip(t *testing.T, newTransactor NewTransactor) {
	e := newEnv(t, newTransactor)
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
}

func accountRoundTrip(t *testing.T, newTransactor NewTransactor) {
	e := newEnv(t, newTransactor)
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
	// The email is unique across accounts: a second registration is refused.
	err := e.tx.InTx(e.ctx, metadata("dup"), func(tx application.Tx) error {
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

func verificationRoundTrip(t *testing.T, newTransactor NewTransactor) {
	e := newEnv(t, newTransactor)
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
}

func loadOfAnUnknownStreamIsNotFound(t *testing.T, newTransactor NewTransactor) {
	e := newEnv(t, newTransactor)
	err := e.tx.InTx(e.ctx, metadata("missing"), func(tx application.Tx) error {
		_, err := tx.LoadForm(e.ctx, uuid.NewString())
		return err
	})
	if !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("LoadForm(unknown) = %v, want domain.ErrNotFound", err)
	}
}

func concurrentUpdatesBothLandAfterARetry(t *testing.T, newTransactor NewTransactor) {
	e := newEnv(t, newTransactor)
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
			errs[i] = e.tx.InTx(e.ctx, metadata("concurrent"), func(tx application.Tx) error {
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
}

func refusesAStaleVersion(t *testing.T, newTransactor NewTransactor) {
	e := newEnv(t, newTransactor)
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

func keepsNothingOfAFailedCommand(t *testing.T, newTransactor NewTransactor) {
	e := newEnv(t, newTransactor)
	_, formID := e.seedForm(t)
	boom := errors.New("boom")
	err := e.tx.InTx(e.ctx, metadata("fails"), func(tx application.Tx) error {
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
}
