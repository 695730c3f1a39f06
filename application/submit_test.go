package application

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// fakeForms answers a cached (possibly stale) and a fresh form.
type fakeForms struct {
	cached, fresh FormRecord
	freshReads    int
}

func (f *fakeForms) FormByAccessKey(_ context.Context, _ []byte, fresh bool) (FormRecord, error) {
	if fresh {
		f.freshReads++
		return f.fresh, nil
	}
	return f.cached, nil
}

func (f *fakeForms) FormByID(context.Context, string) (FormRecord, error) {
	f.freshReads++
	return f.fresh, nil
}

// fakeStore refuses the first conflicts commits with ErrConcurrency.
type fakeStore struct {
	conflicts int
	accepted  []AcceptedSubmission
}

func (s *fakeStore) Accept(_ context.Context, a AcceptedSubmission) (Acceptance, error) {
	if s.conflicts > 0 {
		s.conflicts--
		return Acceptance{}, domain.ErrConcurrency
	}
	s.accepted = append(s.accepted, a)
	return Acceptance{}, nil
}

func (s *fakeStore) IdempotentResponse(context.Context, string, string) (*StoredResponse, error) {
	return nil, nil
}

type noEntitlements struct{}

func (noEntitlements) Has(context.Context, string, string) (bool, error) { return false, nil }

func (noEntitlements) PlanOf(context.Context, string) (account.Plan, error) {
	return account.PlanFree, nil
}

type plainSealer struct{}

func (plainSealer) Seal(_ string, p []byte) (SealedPayload, error) {
	return SealedPayload{Ciphertext: p}, nil
}
func (plainSealer) Open(_ string, p SealedPayload) ([]byte, error) { return p.Ciphertext, nil }

type lenHasher struct{}

func (lenHasher) HashValue(_, _, v string) string { return strconv.Itoa(len(v)) }

type seqIDs struct{ n int }

func (s *seqIDs) New() string { s.n++; return "id-" + strconv.Itoa(s.n) }

type fixedClock struct{}

func (fixedClock) Now() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }

func liveForm(version int, allowed ...string) FormRecord {
	return FormRecord{ID: "form-1", AccountID: "acct-1", Version: version, RecipientVerified: true,
		Settings: form.Settings{Name: "Contact", RecipientEmail: "inbox@example.com", AllowedDomains: allowed,
			ReplyToMode: form.ReplyToSubmitter}.Normalize()}
}

func newTestSubmitHandler(forms *fakeForms, store *fakeStore) SubmitCommand {
	return NewSubmitHandler(forms, store, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{}, fixedClock{}, noFloods{}, testQuotas, NopMetrics{}, noCaptchas(), noSpamChecks(), noUploads(), newMemoryTestInbox(), noHandOff(), uncounted{}, nil)
}

func post(origin string) Submit {
	return Submit{Origin: origin, JSONClient: true, RequestID: "req-1", Fields: []submission.Field{
		{Name: "access_key", Value: "key"}, {Name: "email", Value: "ada@example.com"}, {Name: "message", Value: "Hi"},
	}}
}

func TestARejectionOnACachedFormIsJudgedAgainOnFreshData(t *testing.T) {
	forms := &fakeForms{cached: liveForm(1, "old.example.com"), fresh: liveForm(2, "example.com")}
	store := &fakeStore{}
	out, err := newTestSubmitHandler(forms, store).Handle(context.Background(), post("https://example.com"))
	if err != nil {
		t.Fatalf("the fresh form allows the origin, got %v", err)
	}
	if forms.freshReads != 1 || len(store.accepted) != 1 || store.accepted[0].FormVersion != 2 {
		t.Fatalf("fresh reads %d, accepted %+v: want one fresh read and a commit at version 2", forms.freshReads, store.accepted)
	}
	if out.Response.DeliveryID == "" || out.Response.Message != SuccessMessage {
		t.Fatalf("response %+v", out.Response)
	}
}

func TestACommitAgainstAChangedFormIsJudgedAgain(t *testing.T) {
	// The cache still allows the origin, the form no longer does: the store's
	// version check refuses the commit and the fresh judgement rejects it.
	forms := &fakeForms{cached: liveForm(1, "example.com"), fresh: liveForm(2, "other.example.com")}
	store := &fakeStore{conflicts: 1}
	_, err := newTestSubmitHandler(forms, store).Handle(context.Background(), post("https://example.com"))
	var rejected *SubmissionRejected
	if !errors.As(err, &rejected) || rejected.Gate != submission.GateOrigin {
		t.Fatalf("want a rejection by the origin gate, got %v", err)
	}
	if len(store.accepted) != 0 {
		t.Fatalf("nothing may be committed, got %d", len(store.accepted))
	}
}

func TestIdempotencyKeyReusedForAnotherBodyIsRefused(t *testing.T) {
	first := post("https://example.com")
	prior := &StoredResponse{RequestHash: requestHash("key", first.Fields)}
	changed := post("https://example.com")
	changed.Fields[2].Value = "Something else"
	_, data := submission.Split(changed.Fields)
	if _, err := replay(changed, "key", data, prior); !errors.Is(err, ErrIdempotencyMismatch) {
		t.Fatalf("got %v, want ErrIdempotencyMismatch", err)
	}
	_, data = submission.Split(first.Fields)
	out, err := replay(first, "key", data, prior)
	if err != nil || out.Response.Body.Data["message"] != "Hi" {
		t.Fatalf("the same body replays with its echo rebuilt: %+v, %v", out.Response, err)
	}
}

// countingEntitlements grants nothing and counts the lookups: one per
// judgement of a request that needs one.
type countingEntitlements struct{ lookups int }

func (c *countingEntitlements) Has(context.Context, string, string) (bool, error) {
	c.lookups++
	return false, nil
}

func (c *countingEntitlements) PlanOf(context.Context, string) (account.Plan, error) {
	return account.PlanFree, nil
}

// Security review: a refusal was judged twice even when the fresh form was
// the same version, running its regex rules (up to the whole budget) again.
func TestARefusalIsJudgedAgainOnlyWhenTheFormChanged(t *testing.T) {
	cmd := post("https://example.com")
	cmd.Fields = append(cmd.Fields, submission.Field{Name: "ccemail", Value: "boss@example.com"}) // needs cc_recipients
	for _, tt := range []struct {
		name          string
		freshVersion  int
		wantJudgments int
	}{
		{"same version", 1, 1},
		{"changed since it was cached", 2, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			forms := &fakeForms{cached: liveForm(1), fresh: liveForm(tt.freshVersion)}
			ent := &countingEntitlements{}
			h := NewSubmitHandler(forms, &fakeStore{}, ent, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{}, fixedClock{}, noFloods{}, testQuotas, NopMetrics{}, noCaptchas(), noSpamChecks(), noUploads(), newMemoryTestInbox(), noHandOff(), uncounted{}, nil)
			_, err := h.Handle(context.Background(), cmd)
			var rejected *SubmissionRejected
			if !errors.As(err, &rejected) || rejected.Gate != submission.GatePaidFeatures {
				t.Fatalf("err = %v, want the paid_features refusal", err)
			}
			if forms.freshReads != 1 || ent.lookups != tt.wantJudgments {
				t.Errorf("fresh reads %d, judgements %d; want 1 and %d", forms.freshReads, ent.lookups, tt.wantJudgments)
			}
		})
	}
}

// An enabled webhook integration gets a delivery on every accepted
// submission: queued with the URL's host as target, its id in
// webhookDeliveryIds, its URL sealed with the fields.
func TestAcceptQueuesTheWebhookIntegration(t *testing.T) {
	f := liveForm(1, "example.com")
	f.Integrations = []form.Integration{{Type: form.IntegrationWebhook, Enabled: true, TargetURL: "https://in.example.org/h?t=1"}}
	store := &fakeStore{}
	out, err := newTestSubmitHandler(&fakeForms{cached: f, fresh: f}, store).Handle(context.Background(), post("https://example.com"))
	if err != nil || len(store.accepted) != 1 {
		t.Fatalf("Handle: %v, accepted %d", err, len(store.accepted))
	}
	ids := out.Response.WebhookDeliveryIDs
	if len(ids) != 1 {
		t.Fatalf("webhookDeliveryIds %v, want the integration's delivery", ids)
	}
	a := store.accepted[0]
	var hook *delivery.Queued
	for i := range a.Queued {
		if a.Queued[i].DeliveryID == ids[0] {
			hook = &a.Queued[i]
		}
	}
	if hook == nil || hook.Kind != delivery.KindWebhook || hook.Target != "in.example.org" {
		t.Fatalf("queued %+v: want a webhook delivery to in.example.org with id %s", a.Queued, ids[0])
	}
	var p Payload
	if err := json.Unmarshal(a.Payload.Ciphertext, &p); err != nil {
		t.Fatal(err)
	}
	if p.WebhookURLs[ids[0]] != "https://in.example.org/h?t=1" || p.RequestID != "req-1" {
		t.Errorf("sealed payload %+v: want the integration's URL under its delivery id and the request id", p)
	}
}

// Enabled Slack and Discord integrations each get a delivery on every
// accepted submission: queued with the URL's host as target, their ids in
// notificationDeliveryIds (not webhookDeliveryIds), their URLs sealed.
func TestAcceptQueuesTheChatIntegrations(t *testing.T) {
	f := liveForm(1, "example.com")
	f.Integrations = []form.Integration{
		{Type: form.IntegrationDiscord, Enabled: true, TargetURL: "https://discord.com/api/webhooks/1/x"},
		{Type: form.IntegrationSlack, Enabled: true, TargetURL: "https://hooks.slack.com/services/T/B/x"},
	}
	store := &fakeStore{}
	out, err := newTestSubmitHandler(&fakeForms{cached: f, fresh: f}, store).Handle(context.Background(), post("https://example.com"))
	if err != nil || len(store.accepted) != 1 {
		t.Fatalf("Handle: %v, accepted %d", err, len(store.accepted))
	}
	ids := out.Response.NotificationDeliveryIDs
	if len(ids) != 2 || len(out.Response.WebhookDeliveryIDs) != 0 {
		t.Fatalf("notificationDeliveryIds %v, webhookDeliveryIds %v: want the two chat deliveries only", ids, out.Response.WebhookDeliveryIDs)
	}
	a := store.accepted[0]
	var p Payload
	if err := json.Unmarshal(a.Payload.Ciphertext, &p); err != nil {
		t.Fatal(err)
	}
	want := []struct{ kind, target, url string }{
		{delivery.KindSlack, "hooks.slack.com", "https://hooks.slack.com/services/T/B/x"},
		{delivery.KindDiscord, "discord.com", "https://discord.com/api/webhooks/1/x"},
	}
	for i, w := range want {
		var q *delivery.Queued
		for j := range a.Queued {
			if a.Queued[j].DeliveryID == ids[i] {
				q = &a.Queued[j]
			}
		}
		if q == nil || q.Kind != w.kind || q.Target != w.target {
			t.Errorf("queued %+v: want a %s delivery to %s with id %s", a.Queued, w.kind, w.target, ids[i])
		}
		if p.WebhookURLs[ids[i]] != w.url {
			t.Errorf("sealed URL of %s = %q, want %q", w.kind, p.WebhookURLs[ids[i]], w.url)
		}
	}
}

// The dashboard's playground names its form by id (formd keeps only the
// access key's hash): allowed for a dry run, refused for a live post.
func TestADryRunMayNameItsFormByID(t *testing.T) {
	forms := &fakeForms{cached: liveForm(1), fresh: liveForm(1)}
	store := &fakeStore{}
	h := newTestSubmitHandler(forms, store)
	fields := []submission.Field{{Name: "email", Value: "ada@example.com"}}
	out, err := h.Handle(context.Background(), Submit{FormID: "form-1", DryRun: true, JSONClient: true, RequestID: "req-1", Fields: fields,
		Origin: "https://example.com"})
	if err != nil || !out.Response.Success || forms.freshReads == 0 {
		t.Fatalf("dry run by id: %+v, %v (fresh reads %d)", out.Response, err, forms.freshReads)
	}
	if _, err := h.Handle(context.Background(), Submit{FormID: "form-1", JSONClient: true, RequestID: "req-2", Fields: fields}); err == nil {
		t.Fatal("a live submission named its form by id")
	}
	if len(store.accepted) != 0 {
		t.Fatalf("committed %d submissions", len(store.accepted))
	}
}
