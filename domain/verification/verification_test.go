package verification_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/verification"
)

// verificationT0 is deliberately not UTC: events must record UTC times.
var verificationT0 = time.Date(2025, 5, 10, 22, 15, 0, 0, time.FixedZone("JST", 9*3600))

func verificationRequested(kind verification.Kind) verification.Requested {
	return verification.Requested{
		VerificationID: "ver-1", Kind: kind, SubjectID: "form-1", AccountID: "acct-1",
		Email: "owner@example.com", TokenHash: "tokenhash", DeliveryID: "del-1",
	}
}

func verificationPending(t *testing.T) *verification.Verification {
	t.Helper()
	v, err := verification.Request(verificationRequested(verification.KindRecipient), verificationT0)
	if err != nil {
		t.Fatalf("Request: %v", err)
	}
	return v
}

func TestRequest(t *testing.T) {
	tests := []struct {
		name string
		kind verification.Kind
	}{
		{name: "account", kind: verification.KindAccount},
		{name: "recipient", kind: verification.KindRecipient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := verificationRequested(tt.kind)
			// Times given by the caller are replaced by the request's own.
			r.At = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
			r.ExpiresAt = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
			v, err := verification.Request(r, verificationT0)
			if err != nil {
				t.Fatalf("Request: %v", err)
			}
			if v.Status() != verification.StatusPending {
				t.Errorf("Status() = %q, want pending", v.Status())
			}
			wantAt := verificationT0.UTC()
			if v.At != wantAt || v.At.Location() != time.UTC {
				t.Errorf("At = %v, want %v", v.At, wantAt)
			}
			if want := wantAt.Add(72 * time.Hour); v.ExpiresAt != want || verification.Lifetime != 72*time.Hour {
				t.Errorf("ExpiresAt = %v, want At + 72h = %v", v.ExpiresAt, want)
			}
			want := verificationRequested(tt.kind)
			want.At, want.ExpiresAt = wantAt, wantAt.Add(verification.Lifetime)
			if !reflect.DeepEqual(v.Changes(), []verification.Event{want}) {
				t.Errorf("Changes() = %+v, want [%+v]", v.Changes(), want)
			}
			if v.Requested != want {
				t.Errorf("Requested = %+v, want %+v", v.Requested, want)
			}
			if v.Version() != 0 {
				t.Errorf("Version() = %d, want 0", v.Version())
			}
		})
	}
}

// A verification's mail is a delivery like any other: it carries the
// request's delivery id (the Message-ID) and names the verification, whose
// record the sender reads at send time; a recipient verification belongs to
// its form's delivery log, an account verification to no form.
func TestARequestIsMailedByItsOwnDelivery(t *testing.T) {
	for kind, want := range map[verification.Kind]delivery.Queued{
		verification.KindAccount: {DeliveryID: "del-1", VerificationID: "ver-1",
			Kind: delivery.KindAccountVerification, Target: "example.com", At: verificationT0.UTC()},
		verification.KindRecipient: {DeliveryID: "del-1", VerificationID: "ver-1", FormID: "form-1",
			Kind: delivery.KindRecipientVerification, Target: "example.com", At: verificationT0.UTC()},
	} {
		v, err := verification.Request(verificationRequested(kind), verificationT0)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Delivery(); got != want {
			t.Errorf("%s: Delivery() = %+v, want %+v", kind, got, want)
		}
		if !delivery.IsVerification(want.Kind) {
			t.Errorf("%s is not a verification kind", want.Kind)
		}
	}
	for _, kind := range []string{delivery.KindEmail, delivery.KindAutoresponder, delivery.KindWebhook, ""} {
		if delivery.IsVerification(kind) {
			t.Errorf("IsVerification(%q) = true", kind)
		}
	}
}

func TestRequestRejects(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*verification.Requested)
	}{
		{name: "no id", mutate: func(r *verification.Requested) { r.VerificationID = "" }},
		{name: "no subject", mutate: func(r *verification.Requested) { r.SubjectID = "" }},
		{name: "no email", mutate: func(r *verification.Requested) { r.Email = "" }},
		{name: "no token hash", mutate: func(r *verification.Requested) { r.TokenHash = "" }},
		{name: "no delivery id", mutate: func(r *verification.Requested) { r.DeliveryID = "" }},
		{name: "no kind", mutate: func(r *verification.Requested) { r.Kind = "" }},
		{name: "unknown kind", mutate: func(r *verification.Requested) { r.Kind = "password" }},
		{name: "kind wrong case", mutate: func(r *verification.Requested) { r.Kind = "Account" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := verificationRequested(verification.KindAccount)
			tt.mutate(&r)
			v, err := verification.Request(r, verificationT0)
			if err == nil {
				t.Fatal("Request succeeded, want an error")
			}
			if v != nil {
				t.Error("Request returned a verification with its error")
			}
		})
	}
}

func TestComplete(t *testing.T) {
	tests := []struct {
		name    string
		after   time.Duration // since the request
		zone    *time.Location
		expired bool
	}{
		{name: "at once", after: 0},
		{name: "an hour later", after: time.Hour},
		{name: "a nanosecond before expiry", after: verification.Lifetime - time.Nanosecond},
		{name: "just before expiry in another zone", after: verification.Lifetime - time.Second, zone: time.FixedZone("HST", -10*3600)},
		{name: "at expiry", after: verification.Lifetime, expired: true},
		{name: "a nanosecond after expiry", after: verification.Lifetime + time.Nanosecond, expired: true},
		{name: "at expiry in another zone", after: verification.Lifetime, zone: time.FixedZone("HST", -10*3600), expired: true},
		{name: "a month later", after: 30 * 24 * time.Hour, expired: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := verificationPending(t)
			now := verificationT0.Add(tt.after)
			if tt.zone != nil {
				now = now.In(tt.zone)
			}
			err := v.Complete(now, true)
			if tt.expired {
				if !errors.Is(err, verification.ErrExpired) {
					t.Fatalf("Complete = %v, want ErrExpired", err)
				}
				var fe *domain.ForbiddenError
				if !errors.As(err, &fe) {
					t.Errorf("ErrExpired is %T, want *domain.ForbiddenError", err)
				}
				if v.Status() != verification.StatusPending || len(v.Changes()) != 1 {
					t.Errorf("expired link changed the verification: %q %+v", v.Status(), v.Changes())
				}
				return
			}
			if err != nil {
				t.Fatalf("Complete = %v, want nil", err)
			}
			if v.Status() != verification.StatusVerified {
				t.Errorf("Status() = %q, want verified", v.Status())
			}
			want := verification.Completed{At: now.UTC()}
			if len(v.Changes()) != 2 || v.Changes()[1] != want {
				t.Errorf("Changes() = %+v, want Requested then %+v", v.Changes(), want)
			}
			if c := v.Changes()[1].(verification.Completed); c.At.Location() != time.UTC {
				t.Errorf("Completed.At = %v, want UTC", c.At)
			}
		})
	}
}

func TestALinkVerifiesOnce(t *testing.T) {
	tests := []struct {
		name   string
		second time.Duration // since the request
	}{
		{name: "again before expiry", second: time.Hour},
		{name: "again after expiry", second: 2 * verification.Lifetime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := verificationPending(t)
			first := verificationT0.Add(time.Minute)
			if err := v.Complete(first, true); err != nil {
				t.Fatalf("first Complete: %v", err)
			}
			if err := v.Complete(verificationT0.Add(tt.second), true); !errors.Is(err, verification.ErrAlreadyUsed) {
				t.Errorf("second Complete = %v, want ErrAlreadyUsed", err)
			}
			if len(v.Changes()) != 2 {
				t.Fatalf("Changes() = %+v, want Requested and one Completed", v.Changes())
			}
			if c := v.Changes()[1]; c != (verification.Completed{At: first.UTC()}) {
				t.Errorf("Completed = %+v, want the first completion", c)
			}
			if v.Status() != verification.StatusVerified {
				t.Errorf("Status() = %q, want verified", v.Status())
			}
		})
	}
}

// Security review: an old link verified the address again after the form
// changed its recipient away and back. Only the newest request verifies.
func TestOnlyTheLatestRequestVerifies(t *testing.T) {
	v := verificationPending(t)
	if err := v.Complete(verificationT0.Add(time.Minute), false); !errors.Is(err, verification.ErrSuperseded) {
		t.Errorf("Complete of a superseded request = %v, want ErrSuperseded", err)
	}
	if len(v.Changes()) != 1 || v.Status() != verification.StatusPending {
		t.Errorf("a refused link recorded %+v", v.Changes())
	}
}

func TestFromHistory(t *testing.T) {
	for _, events := range [][]verification.Event{nil, {}} {
		v, err := verification.FromHistory(events)
		if !errors.Is(err, domain.ErrNotFound) || v != nil {
			t.Errorf("FromHistory(%v) = %v, %v; want nil, ErrNotFound", events, v, err)
		}
	}

	v := verificationPending(t)
	pending, err := verification.FromHistory(v.Changes())
	if err != nil {
		t.Fatalf("FromHistory: %v", err)
	}
	if pending.Status() != verification.StatusPending || pending.Version() != 1 || len(pending.Changes()) != 0 {
		t.Errorf("pending: Status()=%q Version()=%d Changes()=%+v", pending.Status(), pending.Version(), pending.Changes())
	}
	if pending.Requested != v.Requested {
		t.Errorf("reloaded Requested = %+v, want %+v", pending.Requested, v.Requested)
	}
	// A reloaded pending verification still expires on time.
	if err := pending.Complete(v.ExpiresAt, true); !errors.Is(err, verification.ErrExpired) {
		t.Errorf("reloaded Complete at expiry = %v, want ErrExpired", err)
	}

	if err := v.Complete(verificationT0.Add(time.Hour), true); err != nil {
		t.Fatal(err)
	}
	done, err := verification.FromHistory(v.Changes())
	if err != nil {
		t.Fatalf("FromHistory: %v", err)
	}
	if done.Status() != verification.StatusVerified || done.Version() != 2 {
		t.Errorf("verified: Status()=%q Version()=%d", done.Status(), done.Version())
	}
	if err := done.Complete(verificationT0.Add(10*verification.Lifetime), true); !errors.Is(err, verification.ErrAlreadyUsed) || len(done.Changes()) != 0 {
		t.Errorf("Complete on a reloaded verified link = %v, %+v; want ErrAlreadyUsed and no event", err, done.Changes())
	}
}

func TestEventTypes(t *testing.T) {
	tests := []struct {
		event verification.Event
		want  string
	}{
		{verification.Requested{}, "verification.requested.v1"},
		{verification.Completed{}, "verification.completed.v1"},
	}
	for _, tt := range tests {
		if got := tt.event.EventType(); got != tt.want {
			t.Errorf("%T.EventType() = %q, want %q", tt.event, got, tt.want)
		}
	}
}
