package form_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

func ptr[T any](v T) *T { return &v }

func integrationForm(t *testing.T) *form.Form {
	t.Helper()
	f, err := form.Create(formNewForm(form.Settings{Name: "Contact", RecipientEmail: "owner@example.com"}), form.Policy{}, formT0)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestConfigureIntegrationRejects(t *testing.T) {
	tests := []struct {
		name      string
		typ       form.IntegrationType
		patch     form.IntegrationPatch
		wantField string
	}{
		{"webhook http", form.IntegrationWebhook, form.IntegrationPatch{TargetURL: ptr("http://example.com/hook")}, "targetUrl"},
		{"webhook relative", form.IntegrationWebhook, form.IntegrationPatch{TargetURL: ptr("/hook")}, "targetUrl"},
		{"webhook no host", form.IntegrationWebhook, form.IntegrationPatch{TargetURL: ptr("https:///hook")}, "targetUrl"},
		{"webhook userinfo", form.IntegrationWebhook, form.IntegrationPatch{TargetURL: ptr("https://u:p@example.com/")}, "targetUrl"},
		{"webhook decimal IPv4", form.IntegrationWebhook, form.IntegrationPatch{TargetURL: ptr("https://2130706433/")}, "targetUrl"},
		{"webhook octal IPv4", form.IntegrationWebhook, form.IntegrationPatch{TargetURL: ptr("https://0177.0.0.1/")}, "targetUrl"},
		{"webhook too long", form.IntegrationWebhook, form.IntegrationPatch{TargetURL: ptr("https://example.com/" + strings.Repeat("a", 2048))}, "targetUrl"},
		{"slack ftp", form.IntegrationSlack, form.IntegrationPatch{TargetURL: ptr("ftp://hooks.slack.com/x")}, "targetUrl"},
		{"discord http", form.IntegrationDiscord, form.IntegrationPatch{TargetURL: ptr("http://discord.com/api/webhooks/1/x")}, "targetUrl"},
		{"webhook enabled without url", form.IntegrationWebhook, form.IntegrationPatch{Enabled: ptr(true)}, "targetUrl"},
		{"slack enabled with blank url", form.IntegrationSlack, form.IntegrationPatch{Enabled: ptr(true), TargetURL: ptr("  ")}, "targetUrl"},
		{"webhook chatId", form.IntegrationWebhook, form.IntegrationPatch{ChatID: ptr("123")}, "chatId"},
		{"telegram targetUrl", form.IntegrationTelegram, form.IntegrationPatch{TargetURL: ptr("https://example.com")}, "targetUrl"},
		{"telegram chat letters", form.IntegrationTelegram, form.IntegrationPatch{ChatID: ptr("not a chat")}, "chatId"},
		{"telegram short username", form.IntegrationTelegram, form.IntegrationPatch{ChatID: ptr("@abc")}, "chatId"},
		{"telegram chat id typed in", form.IntegrationTelegram, form.IntegrationPatch{Enabled: ptr(true), ChatID: ptr("-1001234567890")}, "chatId"},
		{"telegram channel typed in", form.IntegrationTelegram, form.IntegrationPatch{ChatID: ptr("@formd_news")}, "chatId"},
		{"sheets bad id", form.IntegrationGoogleSheets, form.IntegrationPatch{SpreadsheetID: ptr("a/b")}, "spreadsheetId"},
		{"sheets control in name", form.IntegrationGoogleSheets, form.IntegrationPatch{SheetName: ptr("a\nb")}, "sheetName"},
		{"sheets long name", form.IntegrationGoogleSheets, form.IntegrationPatch{SheetName: ptr(strings.Repeat("s", 101))}, "sheetName"},
		{"sheets enabled without id", form.IntegrationGoogleSheets, form.IntegrationPatch{Enabled: ptr(true), SheetName: ptr("Sheet1")}, "spreadsheetId"},
		{"sheets enabled without name", form.IntegrationGoogleSheets, form.IntegrationPatch{Enabled: ptr(true), SpreadsheetID: ptr("1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms")}, "sheetName"},
		{"sheets chatId", form.IntegrationGoogleSheets, form.IntegrationPatch{ChatID: ptr("1")}, "chatId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := integrationForm(t)
			err := f.ConfigureIntegration(tt.typ, tt.patch, formT0.Add(time.Hour))
			var inv *domain.InvalidInputError
			if !errors.As(err, &inv) || inv.Field != tt.wantField {
				t.Fatalf("err = %v, want invalid %s", err, tt.wantField)
			}
			if len(f.Changes()) != 1 {
				t.Fatalf("recorded %d events after a refusal, want only the creation", len(f.Changes()))
			}
		})
	}
}

func TestConfigureIntegrationAccepts(t *testing.T) {
	tests := []struct {
		name  string
		typ   form.IntegrationType
		patch form.IntegrationPatch
		want  form.Integration
	}{
		{"webhook", form.IntegrationWebhook, form.IntegrationPatch{Enabled: ptr(true), TargetURL: ptr(" https://example.com/hook ")},
			form.Integration{Type: form.IntegrationWebhook, Enabled: true, TargetURL: "https://example.com/hook"}},
		{"slack to mattermost", form.IntegrationSlack, form.IntegrationPatch{Enabled: ptr(true), TargetURL: ptr("https://chat.example.org/hooks/abc")},
			form.Integration{Type: form.IntegrationSlack, Enabled: true, TargetURL: "https://chat.example.org/hooks/abc"}},
		{"discord IPv6", form.IntegrationDiscord, form.IntegrationPatch{TargetURL: ptr("https://[2001:db8::1]/hook")},
			form.Integration{Type: form.IntegrationDiscord, TargetURL: "https://[2001:db8::1]/hook"}},
		{"webhook disabled and incomplete", form.IntegrationWebhook, form.IntegrationPatch{},
			form.Integration{Type: form.IntegrationWebhook}},
		{"telegram awaiting its chat", form.IntegrationTelegram, form.IntegrationPatch{Enabled: ptr(true)},
			form.Integration{Type: form.IntegrationTelegram, Enabled: true}},
		{"telegram disconnected", form.IntegrationTelegram, form.IntegrationPatch{Enabled: ptr(true), ChatID: ptr("")},
			form.Integration{Type: form.IntegrationTelegram, Enabled: true}},
		{"sheets", form.IntegrationGoogleSheets, form.IntegrationPatch{Enabled: ptr(true), SpreadsheetID: ptr("1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms"), SheetName: ptr("Leads 2026")},
			form.Integration{Type: form.IntegrationGoogleSheets, Enabled: true, SpreadsheetID: "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms", SheetName: "Leads 2026"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := integrationForm(t)
			now := formT0.Add(time.Hour).UTC()
			if err := f.ConfigureIntegration(tt.typ, tt.patch, now); err != nil {
				t.Fatal(err)
			}
			tt.want.CreatedAt, tt.want.UpdatedAt = now, now
			got, ok := f.Integration(tt.typ)
			if !ok || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("integration = %+v, %v\nwant %+v", got, ok, tt.want)
			}
			if !f.UpdatedAt().Equal(now) {
				t.Errorf("form updatedAt = %v, want %v", f.UpdatedAt(), now)
			}
		})
	}
}

func TestConfigureIntegrationRecordsChanges(t *testing.T) {
	f := integrationForm(t)
	t1, t2 := formT0.Add(time.Hour).UTC(), formT0.Add(2*time.Hour).UTC()
	if err := f.ConfigureIntegration(form.IntegrationWebhook, form.IntegrationPatch{TargetURL: ptr("https://example.com/a")}, t1); err != nil {
		t.Fatal(err)
	}
	first := f.Changes()[1].(form.IntegrationConfigured)
	if got := changeStrings(first.Changes); !reflect.DeepEqual(got, []string{
		"integrations.webhook.enabled: null -> false", `integrations.webhook.targetUrl: null -> "https://example.com/a"`,
	}) {
		t.Errorf("creation changes = %v", got)
	}
	if err := f.ConfigureIntegration(form.IntegrationWebhook, form.IntegrationPatch{Enabled: ptr(true)}, t2); err != nil {
		t.Fatal(err)
	}
	second := f.Changes()[2].(form.IntegrationConfigured)
	if got := changeStrings(second.Changes); !reflect.DeepEqual(got, []string{"integrations.webhook.enabled: false -> true"}) {
		t.Errorf("enable changes = %v", got)
	}
	if !second.Integration.CreatedAt.Equal(t1) || !second.Integration.UpdatedAt.Equal(t2) {
		t.Errorf("times = %v %v, want created %v updated %v", second.Integration.CreatedAt, second.Integration.UpdatedAt, t1, t2)
	}
	// The same values again change nothing, so nothing is recorded.
	if err := f.ConfigureIntegration(form.IntegrationWebhook, form.IntegrationPatch{Enabled: ptr(true), TargetURL: ptr("https://example.com/a")}, t2); err != nil {
		t.Fatal(err)
	}
	if len(f.Changes()) != 3 {
		t.Fatalf("a no-op patch recorded an event: %d events", len(f.Changes()))
	}
	// Rehydrating gives the same integrations.
	again, err := form.FromHistory(f.Changes())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Integrations(), f.Integrations()) || len(again.Integrations()) != 1 {
		t.Fatalf("rehydrated %+v, want %+v", again.Integrations(), f.Integrations())
	}
}

func TestParseIntegrationType(t *testing.T) {
	for _, s := range []string{"webhook", "slack", "discord", "telegram", "google_sheets"} {
		if got, err := form.ParseIntegrationType(s); err != nil || string(got) != s {
			t.Errorf("ParseIntegrationType(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "Webhook", "email", "google-sheets"} {
		var inv *domain.InvalidInputError
		if _, err := form.ParseIntegrationType(s); !errors.As(err, &inv) || inv.Field != "type" {
			t.Errorf("ParseIntegrationType(%q) err = %v, want invalid type", s, err)
		}
	}
}

func changeStrings(cs []form.Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Field + ": " + string(c.From) + " -> " + string(c.To)
	}
	return out
}

func TestIssueWebhookSecret(t *testing.T) {
	f := integrationForm(t)
	t1, t2 := formT0.Add(time.Hour).UTC(), formT0.Add(3*time.Hour).UTC()
	const s1, s2 = "whsec_abcdEFGHIJ", "whsec_efghIJKLMN"
	var inv *domain.InvalidInputError
	if _, err := f.IssueWebhookSecret("s1", s1, t1); !errors.As(err, &inv) || inv.Field != "type" {
		t.Fatalf("a secret for an unconfigured webhook: %v, want invalid type", err)
	}
	if err := f.ConfigureIntegration(form.IntegrationSlack, form.IntegrationPatch{}, t1); err != nil {
		t.Fatal(err)
	}
	if f.NeedsWebhookSecret() {
		t.Error("a form without a webhook needs a webhook secret")
	}
	if _, err := f.IssueWebhookSecret("s1", s1, t1); err == nil {
		t.Fatal("a Slack integration made a webhook secret possible")
	}
	if err := f.ConfigureIntegration(form.IntegrationWebhook, form.IntegrationPatch{}, t1); err != nil {
		t.Fatal(err)
	}
	if !f.NeedsWebhookSecret() {
		t.Error("a new webhook does not need a secret")
	}
	if _, err := f.IssueWebhookSecret("s1", "whsec_abcd", t1); err == nil {
		t.Error("a secret no longer than its prefix was accepted")
	}
	first, err := f.IssueWebhookSecret("s1", s1, t1)
	if err != nil {
		t.Fatal(err)
	}
	if first != (form.WebhookSecretIssued{SecretID: "s1", SecretPrefix: "whsec_abcd", At: t1}) || f.Changes()[len(f.Changes())-1] != first {
		t.Errorf("first secret = %+v; want only its 10-character prefix recorded, with no previous secret", first)
	}
	if f.NeedsWebhookSecret() {
		t.Error("a webhook with a secret needs another")
	}
	second, err := f.IssueWebhookSecret("s2", s2, t2)
	if err != nil {
		t.Fatal(err)
	}
	want := form.WebhookSecretIssued{SecretID: "s2", SecretPrefix: "whsec_efgh", PreviousSecretPrefix: "whsec_abcd",
		PreviousExpiresAt: t2.Add(24 * time.Hour), At: t2}
	if second != want {
		t.Errorf("rotation = %+v\nwant %+v", second, want)
	}
	again, err := form.FromHistory(f.Changes())
	if err != nil {
		t.Fatal(err)
	}
	hook, _ := again.Integration(form.IntegrationWebhook)
	if hook.SecretPrefix != "whsec_efgh" || !hook.UpdatedAt.Equal(t2) {
		t.Errorf("rehydrated webhook = %+v, want the new prefix updated at %v", hook, t2)
	}
	// Reconfiguring keeps the secret: its prefix is not a setting.
	if err := f.ConfigureIntegration(form.IntegrationWebhook, form.IntegrationPatch{TargetURL: ptr("https://example.com/b")}, t2); err != nil {
		t.Fatal(err)
	}
	if hook, _ := f.Integration(form.IntegrationWebhook); hook.SecretPrefix != "whsec_efgh" {
		t.Errorf("reconfigured webhook lost its secret prefix: %+v", hook)
	}
}

// A 410 Gone disables the webhook it was posted to, once; a webhook since
// pointed elsewhere keeps delivering.
func TestDisableGoneWebhook(t *testing.T) {
	f := integrationForm(t)
	t1 := formT0.Add(time.Hour).UTC()
	if f.DisableGoneWebhook("https://example.com/a", t1) {
		t.Fatal("disabled a webhook never configured")
	}
	if err := f.ConfigureIntegration(form.IntegrationWebhook, form.IntegrationPatch{Enabled: ptr(true), TargetURL: ptr("https://example.com/a")}, t1); err != nil {
		t.Fatal(err)
	}
	events := len(f.Changes())
	if f.DisableGoneWebhook("https://example.com/old", t1) || len(f.Changes()) != events {
		t.Fatal("disabled a webhook for a 410 from a URL it no longer posts to")
	}
	if !f.DisableGoneWebhook("https://example.com/a", t1) {
		t.Fatal("the 410 did not disable the webhook")
	}
	gone := f.Changes()[events].(form.IntegrationConfigured)
	if got := changeStrings(gone.Changes); !reflect.DeepEqual(got, []string{"integrations.webhook.enabled: true -> false"}) {
		t.Errorf("changes = %v", got)
	}
	if i, _ := f.Integration(form.IntegrationWebhook); i.Enabled || i.TargetURL != "https://example.com/a" {
		t.Errorf("integration %+v: want disabled with its URL kept", i)
	}
	if f.DisableGoneWebhook("https://example.com/a", t1) || len(f.Changes()) != events+1 {
		t.Error("a second 410 recorded another event")
	}
}
