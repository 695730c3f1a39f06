package postgres_test

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// A form's captcha setting reaches its read-model row in the stored shape,
// and its sealed secret comes back byte for byte: one per form, replaced in
// place, gone when deleted.
func TestCaptchaSettingsAndSecretRoundTrip(t *testing.T) {
	e := newUoWEnv(t)
	_, formID := e.seedForm(t)
	if _, err := e.read.CaptchaSecret(e.ctx, formID); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("a form without captcha has a secret: %v", err)
	}
	t0 := time.Now().UTC().Truncate(time.Microsecond)
	store := func(secretID string, sealed application.SealedPayload) {
		t.Helper()
		e.run(t, func(tx application.Tx) error {
			f, err := tx.LoadForm(e.ctx, formID)
			if err != nil {
				return err
			}
			p := form.CaptchaPatch{Provider: ptr("recaptcha_v3"), SiteKey: ptr("6LcSITE"), Secret: ptr("secret"), SecretID: secretID}
			if err := f.ChangeSettings(form.Patch{Captcha: &p}, form.Policy{}, t0); err != nil {
				return err
			}
			if err := tx.SaveForm(e.ctx, f); err != nil {
				return err
			}
			return tx.StoreCaptchaSecret(e.ctx, application.StoredCaptchaSecret{ID: secretID, FormID: formID, Sealed: sealed, CreatedAt: t0})
		})
	}
	first, second := uuid.NewString(), uuid.NewString()
	store(first, application.SealedPayload{KeyID: "k1", WrappedKey: []byte{1, 2}, Ciphertext: []byte{3, 4, 5}})
	rec, err := e.read.FormByID(e.ctx, formID)
	if err != nil {
		t.Fatal(err)
	}
	want := form.Captcha{Provider: form.CaptchaRecaptchaV3, SiteKey: "6LcSITE", MinScore: 0.5, SecretID: first}
	if rec.Settings.Captcha != want {
		t.Fatalf("read model captcha = %+v, want %+v", rec.Settings.Captcha, want)
	}
	store(second, application.SealedPayload{KeyID: "k2", WrappedKey: []byte{6}, Ciphertext: []byte{7, 8}})
	got, err := e.read.CaptchaSecret(e.ctx, formID)
	if err != nil || got.ID != second || got.FormID != formID || got.Sealed.KeyID != "k2" || !bytes.Equal(got.Sealed.WrappedKey, []byte{6}) ||
		!bytes.Equal(got.Sealed.Ciphertext, []byte{7, 8}) || !got.CreatedAt.Equal(t0) {
		t.Fatalf("captcha secret = %+v, %v; want the second one as stored", got, err)
	}
	e.run(t, func(tx application.Tx) error { return tx.DeleteCaptchaSecret(e.ctx, formID) })
	if _, err := e.read.CaptchaSecret(e.ctx, formID); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("a deleted secret is still there: %v", err)
	}
}

// A solution is spent once, even by processes racing with it; expired
// records are pruned.
func TestSpentChallengesRefuseAReplay(t *testing.T) {
	e := newUoWEnv(t)
	spent := postgres.NewSpentChallenges(e.pool)
	t0 := time.Now().UTC()
	spend := func(challenge string, expires time.Time) bool {
		t.Helper()
		ok, err := spent.Spend(e.ctx, challenge, expires)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !spend("c1", t0.Add(time.Minute)) || spend("c1", t0.Add(time.Minute)) || !spend("c2", t0.Add(-time.Minute)) {
		t.Fatal("each challenge is new once, then spent")
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := spent.Spend(e.ctx, "race", t0.Add(time.Minute))
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d of 12 racing spends of one challenge won, want 1", wins.Load())
	}
	n, err := postgres.PruneSpentChallenges(e.ctx, e.pool, t0)
	if err != nil || n != 1 {
		t.Fatalf("pruned %d (%v), want the one expired challenge", n, err)
	}
	if spend("c1", t0.Add(time.Minute)) || !spend("c2", t0.Add(time.Minute)) {
		t.Fatal("an unexpired challenge stays spent; a pruned one is gone (it would be refused as expired anyway)")
	}
}
