package delivery_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
)

func TestTargetsShowOnlyADomainOrHost(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"address", delivery.EmailTarget("Owner@Example.COM"), "example.com"},
		{"quoted local part with @", delivery.EmailTarget(`"a@b"@mail.example.org`), "mail.example.org"},
		{"no address", delivery.EmailTarget(""), ""},
		{"not an address", delivery.EmailTarget("nobody"), ""},
		{"webhook with secret path and query", delivery.WebhookTarget("https://hooks.example.net/T0/B1/secret?token=x"), "hooks.example.net"},
		{"webhook with user info and port", delivery.WebhookTarget("https://user:pw@Hooks.Example.net:8443/x"), "hooks.example.net"},
		{"not a URL", delivery.WebhookTarget("://"), ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestPublicKinds(t *testing.T) {
	tests := []struct {
		stored, public string
		listed         bool
	}{
		{delivery.KindEmail, "notification", true},
		{delivery.KindAutoresponder, "autoresponder", true},
		{delivery.KindWebhook, "webhook", true},
		{delivery.KindSlack, "slack", true},
		{delivery.KindDiscord, "discord", true},
		{delivery.KindTelegram, "telegram", true},
		{delivery.KindGoogleSheets, "google_sheets", true},
		{delivery.KindRecipientVerification, "recipient_verification", true},
		{delivery.KindAccountVerification, "account_verification", false},
		{delivery.KindPasswordReset, "password_reset", false},
	}
	for _, tt := range tests {
		if got := delivery.PublicKind(tt.stored); got != tt.public {
			t.Errorf("PublicKind(%s) = %s, want %s", tt.stored, got, tt.public)
		}
		if got := delivery.Listed(tt.stored); got != tt.listed {
			t.Errorf("Listed(%s) = %v, want %v", tt.stored, got, tt.listed)
		}
		stored, ok := delivery.StoredKind(tt.public)
		if ok != tt.listed || (ok && stored != tt.stored) {
			t.Errorf("StoredKind(%s) = %s, %v", tt.public, stored, ok)
		}
	}
}

func TestOnlyAFailedDeliveryWithItsDataMayBeRetried(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	week := delivery.DefaultFailedPayloadRetention
	tests := []struct {
		name                      string
		state                     string
		needsPayload, payloadKept bool
		refusal                   string // "" when allowed
	}{
		{"failed, payload kept", delivery.StateFailed, true, true, ""},
		{"failed verification mail (no payload needed)", delivery.StateFailed, false, false, ""},
		{"failed, payload shredded", delivery.StateFailed, true, false, "deleted after 7 days"},
		{"succeeded", delivery.StateSucceeded, true, true, "this one is succeeded"},
		{"queued", delivery.StateQueued, true, true, "this one is queued"},
		{"retrying", delivery.StateRetrying, true, true, "this one is retrying"},
	}
	for _, tt := range tests {
		e, err := delivery.RequestRetry(tt.state, tt.needsPayload, tt.payloadKept, week, now)
		if tt.refusal == "" {
			if err != nil || e.At != now || e.EventType() != "delivery.retry_requested.v1" {
				t.Errorf("%s: got %#v, %v", tt.name, e, err)
			}
			continue
		}
		var forbidden *domain.ForbiddenError
		if !errors.As(err, &forbidden) || !strings.Contains(forbidden.Message, tt.refusal) {
			t.Errorf("%s: got %v, want a refusal saying %q", tt.name, err, tt.refusal)
		}
	}
}

func TestFailedPayloadRetention(t *testing.T) {
	done := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		anyFailed bool
		retention time.Duration
		keep      bool
		until     time.Time
	}{
		{"all succeeded: shredded at once", false, 7 * 24 * time.Hour, false, time.Time{}},
		{"one failed: kept for the retention", true, 7 * 24 * time.Hour, true, done.Add(7 * 24 * time.Hour)},
		{"one failed, no retention: shredded at once", true, 0, false, time.Time{}},
	}
	for _, tt := range tests {
		until, keep := delivery.PayloadKeptUntil(tt.anyFailed, done, tt.retention)
		if keep != tt.keep || !until.Equal(tt.until) {
			t.Errorf("%s: got %v, %v; want %v, %v", tt.name, until, keep, tt.until, tt.keep)
		}
	}
}

func TestRetentionIsSaidInDays(t *testing.T) {
	for d, want := range map[time.Duration]string{24 * time.Hour: "after 1 day", 72 * time.Hour: "after 3 days", 90 * time.Minute: "after 1h30m0s"} {
		if err := delivery.PayloadDeletedError(d); !strings.Contains(err.Error(), want) {
			t.Errorf("PayloadDeletedError(%v) = %q, want %q", d, err, want)
		}
	}
}
