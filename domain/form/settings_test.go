package form_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

func settingsBase() form.Settings {
	return form.Settings{Name: "Contact", RecipientEmail: "owner@example.com"}
}

func settingsList(n int, f func(i int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func TestSettingsValidateRejects(t *testing.T) {
	wild := form.Policy{WildcardDomains: true}
	tests := []struct {
		name      string
		mutate    func(*form.Settings)
		policy    form.Policy
		wantField string
	}{
		{name: "name empty", mutate: func(s *form.Settings) { s.Name = "" }, wantField: "name"},
		{name: "uploads without the entitlement", mutate: func(s *form.Settings) { s.UploadsEnabled = true }, wantField: "uploadsEnabled"},
		{name: "too many files", mutate: func(s *form.Settings) { s.UploadLimits.MaxFiles = form.MaxFilesCeiling + 1 }, wantField: "uploadLimits.maxFiles"},
		{name: "negative files", mutate: func(s *form.Settings) { s.UploadLimits.MaxFiles = -1 }, wantField: "uploadLimits.maxFiles"},
		{name: "files above the ceiling", mutate: func(s *form.Settings) { s.UploadLimits.MaxFileBytes = form.MaxFileBytesCeiling + 1 }, wantField: "uploadLimits.maxFileBytes"},
		{name: "a bad mime pattern", mutate: func(s *form.Settings) { s.UploadLimits.AllowedMimeTypes = []string{"image/png", "*/*"} }, wantField: "uploadLimits.allowedMimeTypes[1]"},
		{name: "name blank", mutate: func(s *form.Settings) { s.Name = " \t\n" }, wantField: "name"},
		{name: "name 201 bytes", mutate: func(s *form.Settings) { s.Name = strings.Repeat("n", 201) }, wantField: "name"},
		{name: "recipient empty", mutate: func(s *form.Settings) { s.RecipientEmail = "" }, wantField: "recipientEmail"},
		{name: "recipient no at", mutate: func(s *form.Settings) { s.RecipientEmail = "owner.example.com" }, wantField: "recipientEmail"},
		{name: "recipient display name", mutate: func(s *form.Settings) { s.RecipientEmail = "Owner <owner@example.com>" }, wantField: "recipientEmail"},
		{name: "recipient no dot in domain", mutate: func(s *form.Settings) { s.RecipientEmail = "owner@localhost" }, wantField: "recipientEmail"},
		{name: "domain empty", mutate: func(s *form.Settings) { s.AllowedDomains = []string{""} }, wantField: "allowedDomains[0]"},
		{name: "domain blank", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"example.com", "  "} }, wantField: "allowedDomains[1]"},
		{name: "domain underscore", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"bad_host.example.com"} }, wantField: "allowedDomains[0]"},
		{name: "domain is a URL", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"https://example.com"} }, wantField: "allowedDomains[0]"},
		{name: "domain with port", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"example.com:8080"} }, wantField: "allowedDomains[0]"},
		{name: "domain with path", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"example.com/contact"} }, wantField: "allowedDomains[0]"},
		{name: "domain leading hyphen", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"-www.example.com"} }, wantField: "allowedDomains[0]"},
		{name: "domain trailing hyphen", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"www-.example.com"} }, wantField: "allowedDomains[0]"},
		{name: "domain empty label", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"www..example.com"} }, wantField: "allowedDomains[0]"},
		{name: "domain label 64 bytes", mutate: func(s *form.Settings) { s.AllowedDomains = []string{strings.Repeat("a", 64) + ".example.com"} }, wantField: "allowedDomains[0]"},
		{name: "domain 254 bytes", mutate: func(s *form.Settings) {
			s.AllowedDomains = []string{strings.Repeat(strings.Repeat("a", 62)+".", 4) + "ab"}
		}, wantField: "allowedDomains[0]"},
		{name: "domain non-ascii", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"bücher.example"} }, wantField: "allowedDomains[0]"},
		{name: "wildcard without policy", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"*.example.com"} }, wantField: "allowedDomains[0]"},
		{name: "wildcard of a TLD", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"*.com"} }, policy: wild, wantField: "allowedDomains[0]"},
		{name: "bare star", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"*"} }, policy: wild, wantField: "allowedDomains[0]"},
		{name: "star dot", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"*."} }, policy: wild, wantField: "allowedDomains[0]"},
		{name: "double wildcard", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"*.*.example.com"} }, policy: wild, wantField: "allowedDomains[0]"},
		{name: "inner wildcard", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"www.*.example.com"} }, policy: wild, wantField: "allowedDomains[0]"},
		{name: "star without dot", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"*example.com"} }, policy: wild, wantField: "allowedDomains[0]"},
		{name: "51 domains", mutate: func(s *form.Settings) {
			s.AllowedDomains = settingsList(51, func(i int) string { return fmt.Sprintf("d%d.example.com", i) })
		}, wantField: "allowedDomains"},
		{name: "subject with newline", mutate: func(s *form.Settings) { s.SubjectDefault = "Hello\nBcc: x@example.com" }, wantField: "subjectDefault"},
		{name: "subject with carriage return", mutate: func(s *form.Settings) { s.SubjectDefault = "Hello\rWorld" }, wantField: "subjectDefault"},
		{name: "subject 501 bytes", mutate: func(s *form.Settings) { s.SubjectDefault = strings.Repeat("s", 501) }, wantField: "subjectDefault"},
		{name: "from name with newline", mutate: func(s *form.Settings) { s.FromNameDefault = "Acme\r\nSupport" }, wantField: "fromNameDefault"},
		{name: "from name 501 bytes", mutate: func(s *form.Settings) { s.FromNameDefault = strings.Repeat("f", 501) }, wantField: "fromNameDefault"},
		{name: "from name with a tab", mutate: func(s *form.Settings) { s.FromNameDefault = "Acme\tSupport" }, wantField: "fromNameDefault"},
		{name: "subject with a NUL", mutate: func(s *form.Settings) { s.SubjectDefault = "New\x00message" }, wantField: "subjectDefault"},
		{name: "autoresponder subject with newline", mutate: func(s *form.Settings) { s.Autoresponder = form.Autoresponder{Enabled: true, Subject: "a\nb"} }, wantField: "autoresponder.subject"},
		{name: "autoresponder message 5001 bytes", mutate: func(s *form.Settings) { s.Autoresponder.Message = strings.Repeat("m", 5001) }, wantField: "autoresponder.message"},
		{name: "redirect http", mutate: func(s *form.Settings) { s.RedirectDefault = "http://example.com/thanks" }, wantField: "redirectDefault"},
		{name: "redirect relative", mutate: func(s *form.Settings) { s.RedirectDefault = "/thanks" }, wantField: "redirectDefault"},
		{name: "redirect javascript", mutate: func(s *form.Settings) { s.RedirectDefault = "javascript:alert(1)" }, wantField: "redirectDefault"},
		{name: "reply mode unknown", mutate: func(s *form.Settings) { s.ReplyToMode = "always" }, wantField: "replyToMode"},
		{name: "reply mode wrong case", mutate: func(s *form.Settings) { s.ReplyToMode = "Submitter" }, wantField: "replyToMode"},
		{name: "reply default invalid", mutate: func(s *form.Settings) { s.ReplyToDefault = "nobody" }, wantField: "replyToDefault"},
		{name: "reply default with name", mutate: func(s *form.Settings) { s.ReplyToDefault = "Bob <bob@example.com>" }, wantField: "replyToDefault"},
		{name: "sender ip CIDR", mutate: func(s *form.Settings) { s.AllowedSenderIPs = []string{"203.0.113.7", "10.0.0.0/8"} }, wantField: "allowedSenderIps[1]"},
		{name: "sender ip hostname", mutate: func(s *form.Settings) { s.AllowedSenderIPs = []string{"example.com"} }, wantField: "allowedSenderIps[0]"},
		{name: "sender ip empty", mutate: func(s *form.Settings) { s.AllowedSenderIPs = []string{""} }, wantField: "allowedSenderIps[0]"},
		{name: "sender ip with port", mutate: func(s *form.Settings) { s.AllowedSenderIPs = []string{"203.0.113.7:443"} }, wantField: "allowedSenderIps[0]"},
		{name: "51 sender ips", mutate: func(s *form.Settings) {
			s.AllowedSenderIPs = settingsList(51, func(i int) string { return fmt.Sprintf("192.0.2.%d", i) })
		}, wantField: "allowedSenderIps"},
		{name: "validation rules checked", mutate: func(s *form.Settings) {
			s.Validation.Fields = []form.FieldRule{{Field: "age", Type: "integer"}}
		}, wantField: "validation.fields[0].type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := settingsBase()
			tt.mutate(&s)
			err := s.Normalize().Validate(tt.policy)
			var inv *domain.InvalidInputError
			if !errors.As(err, &inv) {
				t.Fatalf("Validate = %v (%T), want *domain.InvalidInputError", err, err)
			}
			if inv.Field != tt.wantField {
				t.Errorf("Field = %q, want %q (message %q)", inv.Field, tt.wantField, inv.Message)
			}
			if inv.Message == "" || !strings.HasPrefix(err.Error(), tt.wantField+": ") {
				t.Errorf("Error() = %q, want it to name %q and explain", err.Error(), tt.wantField)
			}
		})
	}
}

func TestSettingsValidateAccepts(t *testing.T) {
	wild := form.Policy{WildcardDomains: true}
	tests := []struct {
		name   string
		mutate func(*form.Settings)
		policy form.Policy
	}{
		{name: "minimal", mutate: func(*form.Settings) {}},
		// Quotes and backslashes are fine in a display name: the mailer encodes it.
		{name: "from name with quotes and a backslash", mutate: func(s *form.Settings) { s.FromNameDefault = `Acme "Support\ Team` }},
		{name: "name 200 bytes", mutate: func(s *form.Settings) { s.Name = strings.Repeat("n", 200) }},
		{name: "name padded to 201 bytes", mutate: func(s *form.Settings) { s.Name = " " + strings.Repeat("n", 200) }},
		{name: "domains mixed case and trailing dot", mutate: func(s *form.Settings) {
			s.AllowedDomains = []string{"WWW.Example.COM.", "localhost", "xn--bcher-kva.example"}
		}},
		{name: "domain label 63 bytes", mutate: func(s *form.Settings) { s.AllowedDomains = []string{strings.Repeat("a", 63) + ".example.com"} }},
		{name: "domain 253 bytes", mutate: func(s *form.Settings) {
			s.AllowedDomains = []string{strings.Repeat(strings.Repeat("a", 62)+".", 4) + "a"}
		}},
		{name: "domain IPv4", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"192.0.2.1"} }},
		{name: "domain IPv6", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"2001:db8::1"} }},
		{name: "wildcard with policy", mutate: func(s *form.Settings) { s.AllowedDomains = []string{"*.example.com", "*.Shop.Example.co.uk"} }, policy: wild},
		{name: "50 domains", mutate: func(s *form.Settings) {
			s.AllowedDomains = settingsList(50, func(i int) string { return fmt.Sprintf("d%d.example.com", i) })
		}},
		{name: "subject 500 bytes", mutate: func(s *form.Settings) { s.SubjectDefault = strings.Repeat("s", 500) }},
		{name: "subject surrounding newline trimmed", mutate: func(s *form.Settings) { s.SubjectDefault = "\nHello\r\n" }},
		{name: "autoresponder message multi-line 5000 bytes", mutate: func(s *form.Settings) {
			s.Autoresponder = form.Autoresponder{Enabled: true, Subject: "Thanks", Message: strings.Repeat("line\n", 1000)}
		}},
		{name: "redirect https", mutate: func(s *form.Settings) { s.RedirectDefault = "https://example.com/thanks?from=form#top" }},
		{name: "reply modes", mutate: func(s *form.Settings) { s.ReplyToMode = form.ReplyToNone }},
		{name: "reply default", mutate: func(s *form.Settings) {
			s.ReplyToMode, s.ReplyToDefault = form.ReplyToDefault, "reply@example.com"
		}},
		{name: "sender ips", mutate: func(s *form.Settings) {
			s.AllowedSenderIPs = []string{"203.0.113.7", " 2001:db8::1 ", "::ffff:192.0.2.1"}
		}},
		{name: "50 sender ips", mutate: func(s *form.Settings) {
			s.AllowedSenderIPs = settingsList(50, func(i int) string { return fmt.Sprintf("192.0.2.%d", i) })
		}},
		{name: "uploads and validation", policy: form.Policy{Uploads: true}, mutate: func(s *form.Settings) {
			s.UploadsEnabled = true
			s.Validation.Fields = []form.FieldRule{{Field: "cv", File: &form.FileRule{AllowedMimeTypes: []string{"application/pdf"}}}}
		}},
		{name: "upload limits at the ceilings", mutate: func(s *form.Settings) {
			s.UploadLimits = form.UploadLimits{MaxFiles: form.MaxFilesCeiling, MaxFileBytes: form.MaxFileBytesCeiling, AllowedMimeTypes: []string{"image/*", "application/pdf"}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := settingsBase()
			tt.mutate(&s)
			if err := s.Normalize().Validate(tt.policy); err != nil {
				t.Errorf("Validate = %v, want nil", err)
			}
		})
	}
}

func TestValidateWithoutNormalize(t *testing.T) {
	// Validate alone does not fill defaults: an empty reply mode is refused.
	err := settingsBase().Validate(form.Policy{})
	var inv *domain.InvalidInputError
	if !errors.As(err, &inv) || inv.Field != "replyToMode" {
		t.Errorf("Validate = %v, want an InvalidInputError for replyToMode", err)
	}
}

func TestNormalizeDoesNotAliasInput(t *testing.T) {
	in := settingsBase()
	in.AllowedDomains = []string{"Example.COM"}
	in.AllowedSenderIPs = []string{" 192.0.2.1 "}
	out := in.Normalize()
	if in.AllowedDomains[0] != "Example.COM" || in.AllowedSenderIPs[0] != " 192.0.2.1 " {
		t.Errorf("Normalize changed its input: %q %q", in.AllowedDomains, in.AllowedSenderIPs)
	}
	if out.AllowedDomains[0] != "example.com" || out.AllowedSenderIPs[0] != "192.0.2.1" {
		t.Errorf("Normalize = %q %q", out.AllowedDomains, out.AllowedSenderIPs)
	}
	if again := out.Normalize(); !reflect.DeepEqual(again, out) {
		t.Errorf("Normalize is not idempotent: %+v then %+v", out, again)
	}
}

func TestDiffFromNothingListsEverySetting(t *testing.T) {
	tests := []struct {
		name string
		s    form.Settings
	}{
		{name: "defaults", s: settingsBase().Normalize()},
		{name: "full", s: form.Settings{
			Name: "Contact", RecipientEmail: "owner@example.com",
			AllowedDomains: []string{"example.com"}, SubjectDefault: "Hi",
			FromNameDefault: "Acme", RedirectDefault: "https://example.com/ok",
			ReplyToMode: form.ReplyToDefault, ReplyToDefault: "r@example.com",
			Validation:       form.ValidationSettings{Fields: []form.FieldRule{{Field: "email", Type: "email"}}},
			AllowedSenderIPs: []string{"192.0.2.1"}, UploadsEnabled: true,
			Autoresponder: form.Autoresponder{Enabled: true, Subject: "Thanks", Message: "We got it"},
		}.Normalize()},
	}
	wantOrder := []string{
		"name", "recipientEmail", "allowedDomains", "subjectDefault", "fromNameDefault",
		"redirectDefault", "replyToMode", "replyToDefault", "validation", "allowedSenderIps",
		"uploadsEnabled", "uploadLimits", "autoresponder",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.s)
			if err != nil {
				t.Fatal(err)
			}
			var asJSON map[string]json.RawMessage
			if err := json.Unmarshal(b, &asJSON); err != nil {
				t.Fatal(err)
			}
			// The captcha is diffed field by field, and only once a form has
			// one (TestCaptchaDiffHidesTheSecret).
			delete(asJSON, "captcha")
			if len(asJSON) != len(wantOrder) {
				t.Fatalf("Settings has %d JSON fields besides captcha, the test knows %d: %s", len(asJSON), len(wantOrder), b)
			}
			changes := form.Diff(form.Settings{}, tt.s, true)
			if len(changes) != len(wantOrder) {
				t.Fatalf("Diff listed %d settings, want %d: %+v", len(changes), len(wantOrder), changes)
			}
			for i, c := range changes {
				if c.Field != wantOrder[i] {
					t.Errorf("changes[%d].Field = %q, want %q", i, c.Field, wantOrder[i])
				}
				if string(c.From) != "null" {
					t.Errorf("%s: From = %s, want null", c.Field, c.From)
				}
				if string(c.To) != string(asJSON[c.Field]) {
					t.Errorf("%s: To = %s, want %s", c.Field, c.To, asJSON[c.Field])
				}
			}
			// fromNothing ignores before entirely.
			if again := form.Diff(tt.s, tt.s, true); !reflect.DeepEqual(again, changes) {
				t.Errorf("Diff(s, s, true) = %+v, want %+v", again, changes)
			}
			if same := form.Diff(tt.s, tt.s, false); len(same) != 0 {
				t.Errorf("Diff(s, s, false) = %+v, want none", same)
			}
		})
	}
}

func TestHostAllowed(t *testing.T) {
	allowed := []string{"example.com", "192.0.2.1", "*.example.org"}
	tests := []struct {
		host string
		want bool
	}{
		{"example.com", true},
		{"EXAMPLE.com", true},
		{"example.com.", true},
		{"Example.COM.", true},
		{"www.example.com", false},
		{"example.co", false},
		{"example.com.evil.net", false},
		{"notexample.com", false},
		{"192.0.2.1", true},
		{"192.0.2.10", false},
		{"a.example.org", true},
		{"www.shop.example.org", true},
		{"A.Example.ORG.", true},
		{"example.org", false},
		{"example.org.", false},
		{"badexample.org", false},
		{".example.org", false},
		{"example.org.evil.net", false},
		{"a.example.org.evil.net", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := form.HostAllowed(allowed, tt.host); got != tt.want {
			t.Errorf("HostAllowed(%q, %q) = %v, want %v", allowed, tt.host, got, tt.want)
		}
	}
	for _, host := range []string{"example.com", "", "a.example.org"} {
		if form.HostAllowed(nil, host) {
			t.Errorf("HostAllowed(nil, %q) = true", host)
		}
	}
}

func TestIsHTTPSURL(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"https://example.com", true},
		{"https://example.com/", true},
		{"https://example.com/thanks?from=form#top", true},
		{"https://example.com:8443/ok", true},
		{"HTTPS://example.com", true},
		{"https://192.0.2.1/ok", true},
		{"https://[2001:db8::1]/ok", true},
		{"", false},
		{"http://example.com", false},
		{"ftp://example.com", false},
		{"https://", false},
		{"https:///path", false},
		{"https:example.com", false},
		{"//example.com", false},
		{"example.com", false},
		{"/thanks", false},
		{"https://user@example.com", false},
		{"https://user:pw@example.com", false},
		{"https://exa mple.com", false},
		{"https://example.com:port", false},
		{"javascript:alert(1)", false},
		{" https://example.com", false},
		// Hosts browsers read as IPv4 addresses written another way.
		{"https://2130706433/hook", false},
		{"https://0x7f.1/hook", false},
		{"https://0177.0.0.1/hook", false},
		{"https://127.1/hook", false},
	}
	for _, tt := range tests {
		if got := form.IsHTTPSURL(tt.in); got != tt.want {
			t.Errorf("IsHTTPSURL(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// Regression: single-line settings were checked in map order, so with two of
// them broken the error named either one at random.
func TestValidateNamesTheFirstBrokenSingleLineSettingEveryTime(t *testing.T) {
	s := form.Settings{Name: "Contact", RecipientEmail: "inbox@example.com",
		SubjectDefault: "a\nb", FromNameDefault: "c\nd"}.Normalize()
	for range 50 {
		var invalid *domain.InvalidInputError
		if err := s.Validate(form.Policy{}); !errors.As(err, &invalid) || invalid.Field != "subjectDefault" {
			t.Fatalf("got %v, want subjectDefault named first", err)
		}
	}
}

func TestSettingsIsACopy(t *testing.T) {
	f, err := form.Create(form.NewForm{ID: "f", AccountID: "a", WorkspaceID: "w", AccessKeyHash: "h",
		Settings: form.Settings{Name: "Contact", RecipientEmail: "inbox@example.com", AllowedDomains: []string{"example.com"}}},
		form.Policy{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	f.Settings().AllowedDomains[0] = "evil.test"
	if got := f.Settings().AllowedDomains[0]; got != "example.com" {
		t.Fatalf("changing the returned settings changed the form: %q", got)
	}
	if created := f.Changes()[0].(form.Created); created.Settings.AllowedDomains[0] != "example.com" {
		t.Fatalf("changing the returned settings changed the recorded event: %q", created.Settings.AllowedDomains[0])
	}
}
