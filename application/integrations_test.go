package application

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
)

// integrationWorld is one form in the in-memory unit of work, with a read
// model made from its stream and the other stores integrations use.
type integrationWorld struct {
	*MemoryTransactor
	ReadModel
	t *testing.T
	// The Telegram connect codes, the bot's updates and offset, and the
	// test calls taken (integration_connect_test.go).
	codes   map[string]pendingCode
	updates []TelegramUpdate
	offset  int64
	tests   []time.Time
	// cells are the spreadsheets' proof cells, by spreadsheet id.
	cells map[string]string
}

func newIntegrationWorld(t *testing.T) *integrationWorld {
	t.Helper()
	f, err := form.Create(form.NewForm{ID: "form-1", AccountID: "acct-1", WorkspaceID: "ws-1", AccessKeyHash: "ab",
		Settings: form.Settings{Name: "Contact", RecipientEmail: "owner@example.com"}}, form.Policy{}, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	m := NewMemoryTransactor()
	m.Seed(f.ID(), anys(f.Changes())...)
	return &integrationWorld{MemoryTransactor: m, t: t}
}

// formByID is a form as committed; nil when there is none.
func (w *integrationWorld) formByID(id string) *form.Form {
	w.t.Helper()
	stream := w.Stream(id)
	if len(stream) == 0 || StreamType(stream[0]) != "form" {
		return nil
	}
	events := make([]form.Event, len(stream))
	for i, e := range stream {
		events[i] = e.(form.Event)
	}
	f, err := form.FromHistory(events)
	if err != nil {
		w.t.Fatal(err)
	}
	return f
}

// form is the world's form as committed.
func (w *integrationWorld) form() *form.Form { return w.formByID("form-1") }

// formChanges are the events commands committed to the world's form.
func (w *integrationWorld) formChanges() []form.Event {
	var out []form.Event
	for _, r := range w.Events() {
		if e, ok := r.Event.(form.Event); ok && r.StreamID == "form-1" && r.StreamType == "form" {
			out = append(out, e)
		}
	}
	return out
}

// change changes the world's form as an earlier command would have.
func (w *integrationWorld) change(fn func(f *form.Form) error) {
	w.t.Helper()
	f := w.form()
	if err := fn(f); err != nil {
		w.t.Fatal(err)
	}
	w.Seed(f.ID(), anys(f.Changes())...)
}

func (w *integrationWorld) FormByID(_ context.Context, id string) (FormRecord, error) {
	f := w.formByID(id)
	if f == nil {
		return FormRecord{}, domain.ErrNotFound
	}
	return FormRecord{ID: f.ID(), AccountID: f.AccountID(), WorkspaceID: f.WorkspaceID(), Settings: f.Settings(), Integrations: f.Integrations()}, nil
}

func (w *integrationWorld) SigningSecrets(_ context.Context, formID string, now time.Time) ([]StoredWebhookSecret, error) {
	var out []StoredWebhookSecret
	for _, s := range slices.Backward(w.WebhookSecretsOf(formID)) {
		if s.ExpiresAt.IsZero() || s.ExpiresAt.After(now) {
			out = append(out, s)
		}
	}
	return out, nil
}

// boundSealer "seals" by reversing the bytes and binding them to their
// associated id, so a test sees both that a secret is not stored as it is
// and that it opens only under the id it was sealed for.
type boundSealer struct{}

func (boundSealer) Seal(id string, p []byte) (SealedPayload, error) {
	c := bytes.Clone(p)
	slices.Reverse(c)
	return SealedPayload{KeyID: "k1", WrappedKey: []byte(id), Ciphertext: c}, nil
}

func (boundSealer) Open(id string, p SealedPayload) ([]byte, error) {
	if string(p.WrappedKey) != id {
		return nil, errors.New("sealed for another id")
	}
	c := bytes.Clone(p.Ciphertext)
	slices.Reverse(c)
	return c, nil
}

type movableClock struct{ now time.Time }

func (c *movableClock) Now() time.Time { return c.now }

var integrationOwner = Session{AccountID: "acct-1", ActorType: "session", CredentialID: "cred-1", Access: account.FullAccess()}

func TestConfigureIntegrationIsTheOwnersOnly(t *testing.T) {
	w := newIntegrationWorld(t)
	clock := &movableClock{now: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
	h := NewConfigureIntegrationHandler(w, w, &seqIDs{}, clock, boundSealer{}, allServices{}, w, w, NewSheetProofs(w, w, w, w, clock))
	list := NewListIntegrationsHandler(w)
	stranger := Session{AccountID: "acct-2", ActorType: "session", CredentialID: "cred-2", Access: account.FullAccess()}
	_, err := h.Handle(context.Background(), ConfigureIntegration{Caller: stranger, FormID: "form-1", Type: form.IntegrationSlack})
	if !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another account configured the form: %v, want ErrNotFound", err)
	}
	if _, err := list.Handle(context.Background(), ListIntegrations{Caller: stranger, FormID: "form-1"}); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another account listed the integrations: %v, want ErrNotFound", err)
	}
	if len(w.formChanges()) != 0 {
		t.Fatalf("a refused caller changed the form")
	}
	url := "https://hooks.slack.com/services/T/B/x"
	rec, err := h.Handle(context.Background(), ConfigureIntegration{Caller: integrationOwner, RequestID: "req-1", FormID: "form-1",
		Type: form.IntegrationSlack, Patch: form.IntegrationPatch{TargetURL: &url}})
	if err != nil {
		t.Fatal(err)
	}
	// The URL is a credential: answers show it masked, deliveries use it whole.
	if rec.Type != form.IntegrationSlack || rec.TargetURL != form.MaskURL(url) || rec.Secret != "" || rec.SecretPrefix != "" {
		t.Errorf("slack record = %+v; a Slack integration has no secret, and its URL shows masked", rec)
	}
	if saved, _ := w.form().Integration(form.IntegrationSlack); saved.TargetURL != url {
		t.Errorf("saved URL %q, want %q", saved.TargetURL, url)
	}
	if w.Metadata().Actor != (Actor{Type: "session", ID: "cred-1"}) || w.Metadata().RequestID != "req-1" {
		t.Errorf("metadata = %+v, want the caller as actor", w.Metadata())
	}
	got, err := list.Handle(context.Background(), ListIntegrations{Caller: integrationOwner, FormID: "form-1"})
	if err != nil || len(got) != 1 || got[0].TargetURL != form.MaskURL(url) {
		t.Fatalf("list = %+v, %v", got, err)
	}
}

func TestWebhookSecretIsShownOnceAndRotationKeepsTheOldOneADay(t *testing.T) {
	w := newIntegrationWorld(t)
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	clock := &movableClock{now: t0}
	ids := &seqIDs{}
	configure := NewConfigureIntegrationHandler(w, w, ids, clock, boundSealer{}, allServices{}, w, w, NewSheetProofs(w, w, w, w, clock))
	rotate := NewRotateWebhookSecretHandler(w, w, ids, clock, boundSealer{})
	signing := NewWebhookSigningSecretsHandler(w, boundSealer{}, clock)
	ctx := context.Background()

	if _, err := rotate.Handle(ctx, RotateWebhookSecret{Caller: integrationOwner, FormID: "form-1"}); err == nil {
		t.Fatal("rotated the secret of a webhook never configured")
	}
	first, err := configure.Handle(ctx, ConfigureIntegration{Caller: integrationOwner, FormID: "form-1", Type: form.IntegrationWebhook})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(first.Secret, "whsec_"))
	if !strings.HasPrefix(first.Secret, "whsec_") || err != nil || len(raw) != 32 {
		t.Fatalf("secret %q is not whsec_ and the base64 of 32 bytes (%v)", first.Secret, err)
	}
	if first.SecretPrefix != first.Secret[:10] {
		t.Errorf("prefix %q, want the secret's first 10 characters", first.SecretPrefix)
	}
	if len(w.WebhookSecretsOf("form-1")) != 1 || bytes.Contains(w.WebhookSecretsOf("form-1")[0].Sealed.Ciphertext, []byte(first.Secret)) {
		t.Fatalf("stored secrets %d; the secret must be stored sealed", len(w.WebhookSecretsOf("form-1")))
	}

	enabled, url := true, "https://example.com/hook"
	again, err := configure.Handle(ctx, ConfigureIntegration{Caller: integrationOwner, FormID: "form-1", Type: form.IntegrationWebhook,
		Patch: form.IntegrationPatch{Enabled: &enabled, TargetURL: &url}})
	if err != nil {
		t.Fatal(err)
	}
	if again.Secret != "" || again.SecretPrefix != first.SecretPrefix || len(w.WebhookSecretsOf("form-1")) != 1 {
		t.Errorf("a second PATCH showed secret %q (prefix %q); want only the prefix %q", again.Secret, again.SecretPrefix, first.SecretPrefix)
	}
	listed, _ := NewListIntegrationsHandler(w).Handle(ctx, ListIntegrations{Caller: integrationOwner, FormID: "form-1"})
	if len(listed) != 1 || listed[0].Secret != "" || listed[0].SecretPrefix != first.SecretPrefix {
		t.Errorf("list = %+v, want the prefix only", listed)
	}
	if got, err := signing.Handle(ctx, WebhookSigningSecrets{FormID: "form-1"}); err != nil || !slices.Equal(got, []string{first.Secret}) {
		t.Fatalf("signing secrets = %v, %v; want the unsealed first secret", got, err)
	}

	clock.now = t0.Add(time.Hour)
	rotated, err := rotate.Handle(ctx, RotateWebhookSecret{Caller: integrationOwner, FormID: "form-1"})
	if err != nil {
		t.Fatal(err)
	}
	if rotated.Secret == "" || rotated.Secret == first.Secret || rotated.SecretPrefix != rotated.Secret[:10] {
		t.Fatalf("rotation gave %q (prefix %q)", rotated.Secret, rotated.SecretPrefix)
	}
	for _, at := range []time.Duration{time.Hour, 24*time.Hour + time.Hour - time.Second} {
		clock.now = t0.Add(at)
		got, err := signing.Handle(ctx, WebhookSigningSecrets{FormID: "form-1"})
		if err != nil || !slices.Equal(got, []string{rotated.Secret, first.Secret}) {
			t.Errorf("at +%v signing secrets = %d, %v; want the new one, then the old one", at, len(got), err)
		}
	}
	clock.now = t0.Add(25 * time.Hour)
	if got, err := signing.Handle(ctx, WebhookSigningSecrets{FormID: "form-1"}); err != nil || !slices.Equal(got, []string{rotated.Secret}) {
		t.Errorf("24 h after the rotation signing secrets = %d, %v; want only the new one", len(got), err)
	}
}

func TestWebhookSigningSecretsRefuseASecretSealedForAnotherID(t *testing.T) {
	w := newIntegrationWorld(t)
	sealed, _ := boundSealer{}.Seal(webhookSecretAAD("other"), []byte("whsec_x"))
	if err := w.InTx(context.Background(), Metadata{}, func(tx Tx) error {
		return tx.StoreWebhookSecret(context.Background(), StoredWebhookSecret{ID: "s1", FormID: "form-1", Sealed: sealed}, time.Time{})
	}); err != nil {
		t.Fatal(err)
	}
	_, err := NewWebhookSigningSecretsHandler(w, boundSealer{}, &movableClock{}).Handle(context.Background(), WebhookSigningSecrets{FormID: "form-1"})
	if err == nil {
		t.Fatal("a secret sealed for another id opened")
	}
}

// A receiver answering 410 Gone to the webhook integration's delivery
// disables the integration, with the system as actor; the delivery fails
// for good. A 410 to a per-submit webhook disables nothing.
func TestAGoneReceiverDisablesTheWebhookIntegration(t *testing.T) {
	const url = "https://in.example.org/h"
	for _, tt := range []struct {
		name        string
		integration form.IntegrationType
		disabled    bool
	}{
		{"the integration's delivery", form.IntegrationWebhook, true},
		{"a per-submit webhook to the same URL", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newIntegrationWorld(t)
			w.change(func(f *form.Form) error {
				return f.ConfigureIntegration(form.IntegrationWebhook, form.IntegrationPatch{Enabled: ptrTo(true), TargetURL: ptrTo(url)}, time.Now())
			})
			p := Payload{WebhookURLs: map[string]string{"d1": url}}
			if tt.integration != "" {
				p.Integrations = map[string]form.IntegrationType{"d1": tt.integration}
			}
			raw, _ := encodePayload(p)
			store := &oneDelivery{payload: &SealedPayload{Ciphertext: raw}, claimed: ClaimedDelivery{
				Queued: delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "form-1", Kind: delivery.KindWebhook}}}
			h := NewDeliverHandler(store, plainSealer{}, noMail{}, webhookResult{fmt.Errorf("%w", ErrGone)}, noSecrets{}, w, noVerifications{},
				prefixTokens{}, MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
			if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil {
				t.Fatal(err)
			}
			if got := delivery.Status(store.recorded[0].Outcome); got != "failed" {
				t.Errorf("the delivery is %s, want failed", got)
			}
			hook, _ := w.form().Integration(form.IntegrationWebhook)
			if hook.Enabled == tt.disabled {
				t.Fatalf("integration enabled=%v, want disabled=%v", hook.Enabled, tt.disabled)
			}
			if tt.disabled && (w.Metadata().Actor.Type != ActorSystem || w.Metadata().CausationID != "d1") {
				t.Errorf("metadata %+v: want the system as actor, caused by the delivery", w.Metadata())
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }
