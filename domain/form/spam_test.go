package form

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
)

func TestSpamPolicyIsValidatedFieldByField(t *testing.T) {
	many := make([]string, SpamMaxEntries+1)
	for i := range many {
		many[i] = fmt.Sprintf("word%d", i)
	}
	// Four patterns of ~560 steps exceed the budget of 2048 that 32 KiB
	// values allow (as four such validation regexes do).
	costly := []string{`[a]{0,280}c`, `[a]{0,280}d`, `[a]{0,280}e`, `[a]{0,280}f`}
	cases := []struct {
		name  string
		spam  Spam
		field string // "" when valid
	}{
		{"off by default", Spam{}, ""},
		{"tag", Spam{Mode: SpamTag}, ""},
		{"reject", Spam{Mode: SpamReject}, ""},
		{"hold", Spam{Mode: SpamHold}, ""},
		{"hold for a week", Spam{Mode: SpamHold, HoldDays: 7}, ""},
		{"hold for longest", Spam{Mode: SpamHold, HoldDays: MaxSpamHoldDays}, ""},
		{"hold too long", Spam{Mode: SpamHold, HoldDays: MaxSpamHoldDays + 1}, "spam.holdDays"},
		{"hold for negative days", Spam{Mode: SpamHold, HoldDays: -1}, "spam.holdDays"},
		{"hold days without hold", Spam{Mode: SpamTag, HoldDays: 7}, "spam.holdDays"},
		{"unknown mode", Spam{Mode: "quarantine"}, "spam.mode"},
		{"IPs and CIDRs of both families", Spam{Mode: SpamTag, Rules: SpamRules{
			AllowIPs: []string{"203.0.113.7", "2001:db8::1"}, BlockIPs: []string{"198.51.100.0/24", "2001:db8:bad::/48"}}}, ""},
		{"not an IP", Spam{Rules: SpamRules{BlockIPs: []string{"10.0.0.1", "10.0.0.0/8", "example.com"}}}, "spam.rules.blockIps[2]"},
		{"prefix too long", Spam{Rules: SpamRules{AllowIPs: []string{"10.0.0.0/33"}}}, "spam.rules.allowIps[0]"},
		{"zone", Spam{Rules: SpamRules{AllowIPs: []string{"fe80::1%eth0"}}}, "spam.rules.allowIps[0]"},
		{"repeated entry", Spam{Rules: SpamRules{BlockIPs: []string{"10.0.0.0/8", "10.1.2.3/8"}}}, "spam.rules.blockIps[1]"},
		{"email domain", Spam{Rules: SpamRules{BlockEmailDomains: []string{"spam.example", "@Junk.Example."}}}, ""},
		{"email domain without a dot", Spam{Rules: SpamRules{BlockEmailDomains: []string{"localhost"}}}, "spam.rules.blockEmailDomains[0]"},
		{"email address is not a domain", Spam{Rules: SpamRules{BlockEmailDomains: []string{"me@x.example"}}}, "spam.rules.blockEmailDomains[0]"},
		{"words and phrases", Spam{Rules: SpamRules{BlockWords: []string{"viagra", "free  money", "казино"}}}, ""},
		{"word of punctuation", Spam{Rules: SpamRules{BlockWords: []string{"!!!"}}}, "spam.rules.blockWords[0]"},
		{"word too long", Spam{Rules: SpamRules{BlockWords: []string{strings.Repeat("a", SpamMaxWordRunes+1)}}}, "spam.rules.blockWords[0]"},
		{"too many words", Spam{Rules: SpamRules{BlockWords: many}}, "spam.rules.blockWords"},
		{"safe pattern", Spam{Rules: SpamRules{BlockPatterns: []string{`\bcrypto\b`, `[0-9]{16}`}}}, ""},
		{"unsafe pattern", Spam{Rules: SpamRules{BlockPatterns: []string{`ok`, `(a+)+`}}}, "spam.rules.blockPatterns[1]"},
		{"patterns over the budget", Spam{Rules: SpamRules{BlockPatterns: costly}}, "spam.rules.blockPatterns[3]"},
		{"max links", Spam{Rules: SpamRules{MaxLinks: 3}}, ""},
		{"negative max links", Spam{Rules: SpamRules{MaxLinks: -1}}, "spam.rules.maxLinks"},
		{"scripts", Spam{Rules: SpamRules{AllowedScripts: []string{"Latin", "cyrillic", "HAN"}}}, ""},
		{"unknown script", Spam{Rules: SpamRules{AllowedScripts: []string{"Latin", "Klingon"}}}, "spam.rules.allowedScripts[1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Settings{Name: "Contact", RecipientEmail: "owner@example.com", Spam: c.spam}.Normalize()
			err := s.Validate(Policy{})
			if c.field == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var inv *domain.InvalidInputError
			if !errors.As(err, &inv) || inv.Field != c.field {
				t.Fatalf("want an error on %s, got %v", c.field, err)
			}
			if inv.Message == "" {
				t.Fatalf("no message for %s", c.field)
			}
		})
	}
}

func TestSpamPolicyIsNormalized(t *testing.T) {
	got := Spam{Mode: SpamTag, Rules: SpamRules{
		AllowIPs:          []string{" 203.0.113.7/24 ", "::ffff:198.51.100.9", "", "2001:DB8::/32"},
		BlockEmailDomains: []string{"@Spam.Example.", " "},
		BlockWords:        []string{"  Free \t money "},
		AllowedScripts:    []string{"latin", "han"},
	}}.normalize()
	want := SpamRules{
		AllowIPs:          []string{"203.0.113.0/24", "198.51.100.9", "2001:db8::/32"},
		BlockEmailDomains: []string{"spam.example"},
		BlockWords:        []string{"Free money"},
		AllowedScripts:    []string{"Latin", "Han"},
	}
	if fmt.Sprint(got.Rules) != fmt.Sprint(want) {
		t.Fatalf("got %+v, want %+v", got.Rules, want)
	}
	if off := (Spam{Mode: SpamOff, Rules: SpamRules{BlockWords: []string{" "}}}).normalize(); !off.IsZero() || off.Mode != "" {
		t.Fatalf("off without rules must be the zero policy, got %+v", off)
	}
}

func TestAFormWithoutASpamPolicyStoresNone(t *testing.T) {
	s := Settings{Name: "Contact", RecipientEmail: "owner@example.com", Spam: Spam{Mode: SpamOff}}.Normalize()
	b, _ := json.Marshal(s)
	if strings.Contains(string(b), `"spam"`) {
		t.Fatalf("an off policy without rules must be absent, as in forms made before it: %s", b)
	}
	s.Spam = Spam{Mode: SpamTag, Rules: SpamRules{MaxLinks: 2}}
	b, _ = json.Marshal(s)
	if !strings.Contains(string(b), `"spam":{"mode":"tag","rules":{"maxLinks":2}}`) {
		t.Fatalf("a policy must be stored: %s", b)
	}
}

func TestChangingTheSpamPolicyIsASettingsChange(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f, err := Create(NewForm{ID: "f", AccountID: "a", WorkspaceID: "w", AccessKeyHash: "h",
		Settings: Settings{Name: "Contact", RecipientEmail: "owner@example.com"}}, Policy{}, now)
	if err != nil {
		t.Fatal(err)
	}
	spam := Spam{Mode: SpamReject, Rules: SpamRules{BlockWords: []string{"viagra"}}}
	if err := f.ChangeSettings(Patch{Spam: &spam}, Policy{}, now); err != nil {
		t.Fatal(err)
	}
	events := f.Changes()
	if len(events) != 2 {
		t.Fatalf("want the creation and one change, got %d events", len(events))
	}
	changed := events[1].(SettingsChanged)
	if len(changed.Changes) != 1 || changed.Changes[0].Field != "spam" || string(changed.Changes[0].From) != "" {
		t.Fatalf("want a change of spam from nothing, got %+v", changed.Changes)
	}
	if err := f.ChangeSettings(Patch{Spam: &spam}, Policy{}, now); err != nil || len(f.Changes()) != 2 {
		t.Fatalf("the same policy again must record nothing (err %v)", err)
	}
	bad := Spam{Mode: SpamTag, Rules: SpamRules{BlockIPs: []string{"nope"}}}
	var inv *domain.InvalidInputError
	if err := f.ChangeSettings(Patch{Spam: &bad}, Policy{}, now); !errors.As(err, &inv) || inv.Field != "spam.rules.blockIps[0]" {
		t.Fatalf("want an error on spam.rules.blockIps[0], got %v", err)
	}
}

func TestSpamSummary(t *testing.T) {
	for _, c := range []struct {
		spam Spam
		want string
	}{
		{Spam{}, "off"},
		{Spam{Mode: SpamTag, Rules: SpamRules{BlockWords: []string{"x"}, MaxLinks: 2, BlockDisposable: true}}, "tag, 3 rules"},
		{Spam{Mode: SpamReject, Rules: SpamRules{BlockIPs: []string{"10.0.0.0/8"}}}, "reject, 1 rule"},
		{Spam{Mode: SpamHold}, "hold"},
		{Spam{Mode: SpamHold, HoldDays: 14, Rules: SpamRules{BlockWords: []string{"x"}}}, "hold for 14 days, 1 rule"},
	} {
		if got := c.spam.Summary(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.spam, got, c.want)
		}
	}
}

func TestTheSpamFolderHoldsForItsDaysOrThirty(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if got, want := (Spam{Mode: SpamHold}).HeldUntil(at), at.AddDate(0, 0, DefaultSpamHoldDays); !got.Equal(want) {
		t.Fatalf("default: %v, want %v", got, want)
	}
	if got, want := (Spam{Mode: SpamHold, HoldDays: 7}).HeldUntil(at), at.AddDate(0, 0, 7); !got.Equal(want) {
		t.Fatalf("7 days: %v, want %v", got, want)
	}
}
