package postgres_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
)

// A form's integrations are projected into its read-model row, and its
// webhook's sealed secrets come back byte for byte, the current one first,
// a rotated-out one until it expires.
func TestIntegrationsAndWebhookSecretsRoundTrip(t *testing.T) {
	e := newUoWEnv(t)
	_, formID := e.seedForm(t)
	t0 := time.Now().UTC().Truncate(time.Microsecond)
	url, on := "https://example.com/hook", true
	first := application.StoredWebhookSecret{ID: uuid.NewString(), FormID: formID, Prefix: "whsec_aaaa",
		Sealed: application.SealedPayload{KeyID: "k1", WrappedKey: []byte{1, 2}, Ciphertext: []byte{3, 4, 5}}, CreatedAt: t0}
	e.run(t, func(tx application.Tx) error {
		f, err := tx.LoadForm(e.ctx, formID)
		if err != nil {
			return err
		}
		if err := f.ConfigureIntegration(form.IntegrationWebhook, form.IntegrationPatch{Enabled: &on, TargetURL: &url}, t0); err != nil {
			return err
		}
		if _, err := f.IssueWebhookSecret(first.ID, first.Prefix+"-rest-of-the-secret", t0); err != nil {
			return err
		}
		if err := tx.StoreWebhookSecret(e.ctx, first, time.Time{}); err != nil {
			return err
		}
		return tx.SaveForm(e.ctx, f)
	})
	rec, err := e.read.FormByID(e.ctx, formID)
	if err != nil {
		t.Fatal(err)
	}
	want := form.Integration{Type: form.IntegrationWebhook, Enabled: true, TargetURL: url, SecretPrefix: "whsec_aaaa", CreatedAt: t0, UpdatedAt: t0}
	if len(rec.Integrations) != 1 || rec.Integrations[0] != want {
		t.Fatalf("read model integrations = %+v\nwant [%+v]", rec.Integrations, want)
	}

	second := application.StoredWebhookSecret{ID: uuid.NewString(), FormID: formID, Prefix: "whsec_bbbb",
		Sealed: application.SealedPayload{KeyID: "k2", WrappedKey: []byte{6}, Ciphertext: []byte{7, 8}}, CreatedAt: t0.Add(time.Minute)}
	retireAt := t0.Add(24 * time.Hour)
	e.run(t, func(tx application.Tx) error { return tx.StoreWebhookSecret(e.ctx, second, retireAt) })

	got, err := e.read.SigningSecrets(e.ctx, formID, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != second.ID || got[1].ID != first.ID || !got[1].ExpiresAt.Equal(retireAt) || !got[0].ExpiresAt.IsZero() {
		t.Fatalf("signing secrets = %+v; want the new one, then the old one expiring at %v", got, retireAt)
	}
	if got[1].Sealed.KeyID != "k1" || !bytes.Equal(got[1].Sealed.WrappedKey, []byte{1, 2}) || !bytes.Equal(got[1].Sealed.Ciphertext, []byte{3, 4, 5}) {
		t.Errorf("sealed secret changed on the way: %+v", got[1].Sealed)
	}
	got, err = e.read.SigningSecrets(e.ctx, formID, retireAt.Add(time.Second))
	if err != nil || len(got) != 1 || got[0].ID != second.ID {
		t.Fatalf("after the overlap signing secrets = %+v, %v; want only the new one", got, err)
	}
}
