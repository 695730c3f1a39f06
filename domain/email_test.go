package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// emailCases are judged by IsEmailAddress itself and, through the former
// call sites, by form settings, account registration and the "email" rule.
var emailCases = []struct {
	in   string
	want bool
}{
	{"a@example.com", true},
	{"a@b.co", true},
	{"first.last+tag@mail.example.co.uk", true},
	{"UPPER@EXAMPLE.COM", true},
	{"o'neil@example.com", true},
	{"ü@bücher.de", true},
	{"a@" + strings.Repeat("b", 248) + ".com", true},  // 254 bytes
	{"a@" + strings.Repeat("b", 249) + ".com", false}, // 255 bytes
	{strings.Repeat("a", 250) + "@b.com", false},
	{"", false},
	{"a", false},
	{"plain", false},
	{"a@", false},
	{"@example.com", false},
	{"a@localhost", false},
	{"a@@example.com", false},
	{"a@b@example.com", false},
	{"a b@example.com", false},
	{"a@b .com", false},
	{"a\u00a0b@example.com", false}, // a non-breaking space is whitespace too
	{"a\u2003b@example.com", false},
	{"a\vb@example.com", false},
	{"a@example.com\r\nBcc: b@example.com", false},
	{"a\t@example.com", false},
	{"<a@example.com>", false},
	{"Ann <a@example.com>", false},
	{`"a"@example.com`, false},
	{`"a b"@example.com`, false},
	{"a@example.com, b@example.com", false},
	{"a,b@example.com", false},
	{"a@example.com (comment)", false},
	{".a@example.com", false},
	{"a..b@example.com", false},
	{"a@.com", false},
	{"a@b..com", false},
}

func TestIsEmailAddress(t *testing.T) {
	for _, tt := range emailCases {
		if got := domain.IsEmailAddress(tt.in); got != tt.want {
			t.Errorf("IsEmailAddress(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestIsEmailAddressJudgesTheStringAsGiven(t *testing.T) {
	for _, s := range []string{" a@example.com", "a@example.com ", "a@example.com\n"} {
		if domain.IsEmailAddress(s) {
			t.Errorf("IsEmailAddress(%q) = true: surrounding blanks are the caller's to trim", s)
		}
	}
}

// TestEveryCallSiteAgrees holds the places that used to have their own email
// rule (form settings: form.IsEmailAddress; the "email" field rule:
// submission.IsValidEmail; account registration) to one verdict per string.
// Each trims surrounding blanks first, so padded variants must agree too.
func TestEveryCallSiteAgrees(t *testing.T) {
	rules := form.ValidationSettings{Fields: []form.FieldRule{{Field: "email", Type: "email"}}}
	for _, tt := range emailCases {
		if tt.in == "" {
			continue // blank: "required" decides, not the address rule
		}
		for _, in := range []string{tt.in, " " + tt.in + " "} {
			recipient := form.Settings{Name: "Contact", RecipientEmail: in}.Normalize().Validate(form.Policy{}) == nil
			rule := len(submission.CheckFields(rules, map[string]string{"email": in})) == 0
			_, regErr := account.Register(account.Registration{AccountID: "a", WorkspaceID: "w", Email: in}, time.Time{})
			// Registration lower-cases first: judge the lower-cased string.
			want := domain.IsEmailAddress(strings.TrimSpace(in))
			wantReg := domain.IsEmailAddress(strings.ToLower(strings.TrimSpace(in)))
			if recipient != want || rule != want || (regErr == nil) != wantReg {
				t.Errorf("%q: recipientEmail %v, email rule %v, registration %v; want %v", in, recipient, rule, regErr == nil, want)
			}
			if want != tt.want {
				t.Errorf("%q: IsEmailAddress(trimmed) = %v, want %v", in, want, tt.want)
			}
		}
	}
}
