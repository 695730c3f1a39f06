package application

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
)

func TestTestingAnIntegrationQueuesOneTestDeliveryForItsOwnerOnly(t *testing.T) {
	w := newIntegrationWorld(t)
	clock := &movableClock{now: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
	ctx := context.Background()
	h := NewTestIntegrationHandler(w, w, &seqIDs{}, clock, allServices{}, w)

	if _, err := h.Handle(ctx, TestIntegration{Caller: integrationOwner, FormID: "form-1", Type: form.IntegrationSlack}); !errors.As(err, new(*domain.InvalidInputError)) {
		t.Fatalf("testing an unconfigured integration: %v, want a 400", err)
	}
	url := "https://hooks.slack.com/services/T/B/x"
	off := false
	w.change(func(f *form.Form) error {
		return f.ConfigureIntegration(form.IntegrationSlack, form.IntegrationPatch{TargetURL: &url, Enabled: &off}, clock.now)
	})
	stranger := Session{AccountID: "acct-2", ActorType: "session", CredentialID: "cred-2", Access: account.FullAccess()}
	if _, err := h.Handle(ctx, TestIntegration{Caller: stranger, FormID: "form-1", Type: form.IntegrationSlack}); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another account tested the integration: %v, want ErrNotFound", err)
	}
	if len(w.Queued()) != 0 {
		t.Fatalf("a refused test queued %+v", w.Queued())
	}
	rec, err := h.Handle(ctx, TestIntegration{Caller: integrationOwner, RequestID: "req-1", FormID: "form-1", Type: form.IntegrationSlack})
	if err != nil {
		t.Fatalf("testing a disabled but configured integration: %v", err)
	}
	want := delivery.Queued{DeliveryID: rec.ID, FormID: "form-1", Kind: delivery.KindSlack, Target: "hooks.slack.com", Test: true, At: clock.now}
	if len(w.Queued()) != 1 || w.Queued()[0] != want {
		t.Fatalf("queued = %+v, want %+v", w.Queued(), want)
	}
	if rec.Kind != delivery.KindSlack || rec.State != delivery.StateQueued || rec.FormID != "form-1" || rec.ID == "" {
		t.Errorf("record = %+v", rec)
	}
	if w.Metadata().Actor != (Actor{Type: "session", ID: "cred-1"}) || w.Metadata().RequestID != "req-1" {
		t.Errorf("metadata = %+v, want the caller as actor", w.Metadata())
	}
}
