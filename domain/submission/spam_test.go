package submission_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

func TestSpamRules(t *testing.T) {
	msg := func(v string) []submission.Field { return []submission.Field{field("message", v)} }
	cases := []struct {
		name   string
		rules  form.SpamRules
		fields []submission.Field
		email  string
		ip     string
		spam   bool
		reason string // a reason (or, when not spam, a trace part) that must appear
	}{
		{"no rules", form.SpamRules{}, msg("hello"), "", "203.0.113.7", false, "no rules"},
		{"blocked IPv4 in a CIDR", form.SpamRules{BlockIPs: []string{"203.0.113.0/24"}}, msg("hi"), "", "203.0.113.7", true,
			"blockIps matched 203.0.113.0/24"},
		{"IPv4 outside the CIDR", form.SpamRules{BlockIPs: []string{"203.0.113.0/25"}}, msg("hi"), "", "203.0.113.200", false, "blockIps no match"},
		{"blocked exact IPv6", form.SpamRules{BlockIPs: []string{"2001:db8::1"}}, msg("hi"), "", "2001:db8::1", true, "blockIps matched 2001:db8::1"},
		{"IPv6 in a CIDR", form.SpamRules{BlockIPs: []string{"2001:db8:bad::/48"}}, msg("hi"), "", "2001:db8:bad:1::9", true, "blockIps matched"},
		{"a v4-mapped remote matches a v4 CIDR", form.SpamRules{BlockIPs: []string{"198.51.100.0/24"}}, msg("hi"), "", "::ffff:198.51.100.4", true,
			"blockIps matched"},
		{"no remote IP matches nothing", form.SpamRules{BlockIPs: []string{"0.0.0.0/0"}}, msg("hi"), "", "", false, "blockIps no match"},
		{"an allowed IP wins over every signal", form.SpamRules{AllowIPs: []string{"203.0.113.0/24"}, BlockIPs: []string{"203.0.113.7"},
			BlockWords: []string{"viagra"}}, msg("viagra"), "", "203.0.113.7", false, "allowIps matched 203.0.113.0/24"},
		{"an allow rule that does not match lets signals count", form.SpamRules{AllowIPs: []string{"192.0.2.1"},
			BlockWords: []string{"viagra"}}, msg("viagra"), "", "203.0.113.7", true, `blockWords matched "viagra"`},
		{"blocked email domain", form.SpamRules{BlockEmailDomains: []string{"spam.example"}}, msg("hi"), "Bob@SPAM.example", "", true,
			"blockEmailDomains matched spam.example"},
		{"its subdomain", form.SpamRules{BlockEmailDomains: []string{"spam.example"}}, msg("hi"), "bob@mx.spam.example", "", true,
			"blockEmailDomains matched"},
		{"a lookalike is no subdomain", form.SpamRules{BlockEmailDomains: []string{"spam.example"}}, msg("hi"), "bob@notspam.example", "", false,
			"blockEmailDomains no match"},
		{"disposable address", form.SpamRules{BlockDisposable: true}, msg("hi"), "x@mailinator.com", "", true, "blockDisposable matched mailinator.com"},
		{"disposable subdomain", form.SpamRules{BlockDisposable: true}, msg("hi"), "x@a.yopmail.com", "", true, "blockDisposable matched yopmail.com"},
		{"ordinary address", form.SpamRules{BlockDisposable: true}, msg("hi"), "x@example.com", "", false, "blockDisposable no match"},
		{"blocked word, any case", form.SpamRules{BlockWords: []string{"viagra"}}, msg("Cheap VIAGRA here"), "", "", true, `blockWords matched "viagra"`},
		{"a word inside another is no match", form.SpamRules{BlockWords: []string{"cialis"}}, msg("specialist socialism"), "", "", false,
			"blockWords no match"},
		{"word boundaries are punctuation", form.SpamRules{BlockWords: []string{"casino"}}, msg("(casino!)"), "", "", true, "blockWords matched"},
		{"phrase", form.SpamRules{BlockWords: []string{"free money"}}, msg("get Free Money now"), "", "", true, `"free money"`},
		{"non-Latin word", form.SpamRules{BlockWords: []string{"казино"}}, msg("Лучшее КАЗИНО"), "", "", true, "blockWords matched"},
		{"the subject is judged too", form.SpamRules{BlockWords: []string{"seo"}}, []submission.Field{field("subject", "SEO offer")}, "", "", true,
			"blockWords matched"},
		{"steering fields are not judged", form.SpamRules{BlockWords: []string{"casino"}},
			[]submission.Field{field("redirect", "https://casino.example/"), field("access_key", "casino")}, "", "", false, "blockWords no match"},
		{"pattern", form.SpamRules{BlockPatterns: []string{`[0-9]{4} [0-9]{4} [0-9]{4}`}}, msg("card 1234 5678 9012"), "", "", true,
			"blockPatterns matched"},
		{"pattern no match", form.SpamRules{BlockPatterns: []string{`^bitcoin`}}, msg("no bitcoin"), "", "", false, "blockPatterns no match"},
		{"links over the limit", form.SpamRules{MaxLinks: 2}, []submission.Field{field("message", "http://a.example https://b.example"),
			field("website", "HTTPS://c.example")}, "", "", true, "maxLinks 3 > 2"},
		{"links at the limit", form.SpamRules{MaxLinks: 2}, msg("http://a.example and https://b.example"), "", "", false, "maxLinks 2 <= 2"},
		{"letters of another script", form.SpamRules{AllowedScripts: []string{"Latin"}}, msg("hello привет"), "", "", true,
			"allowedScripts 6 letters outside them (Cyrillic)"},
		{"digits, punctuation and emoji are no script", form.SpamRules{AllowedScripts: []string{"Latin"}}, msg("Café 42! 🙂"), "", "", false,
			"allowedScripts no match"},
		{"several scripts allowed", form.SpamRules{AllowedScripts: []string{"Latin", "Han"}}, msg("hello 你好"), "", "", false, "allowedScripts no match"},
		{"signals add up", form.SpamRules{BlockWords: []string{"viagra"}, MaxLinks: 1}, msg("viagra http://a http://b"), "", "", true, "score 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := submission.JudgeSpam(c.rules, c.fields, c.email, c.ip, nil)
			if v.Spam != c.spam {
				t.Fatalf("spam = %v, want %v (%s)", v.Spam, c.spam, v.Trace())
			}
			if !strings.Contains(v.Trace(), c.reason) {
				t.Fatalf("trace %q does not say %q", v.Trace(), c.reason)
			}
			if c.spam && len(v.Reasons) == 0 {
				t.Fatalf("spam without a reason: %+v", v)
			}
		})
	}
}

func TestSpamPatternsKeepToTheMatchingBudget(t *testing.T) {
	long := strings.Repeat("a", domain.MaxFieldValueBytes)
	var fields []submission.Field
	for range 100 {
		fields = append(fields, field("message", long))
	}
	rules := form.SpamRules{BlockPatterns: []string{`[a]{0,280}c`, `[a]{0,280}d`, `[a]{0,280}e`}}
	v := submission.JudgeSpam(rules, fields, "", "", nil)
	if v.Spam || !strings.Contains(v.Trace(), "within the matching budget") {
		t.Fatalf("100 long values against costly patterns must stop at the budget and say so: %s", v.Trace())
	}
}

func TestTheClassifierJoinsTheRules(t *testing.T) {
	rules := form.SpamRules{MaxLinks: 5}
	spam := submission.JudgeSpam(rules, nil, "", "", &submission.Classification{Score: 7.5, Spam: true, Reasons: []string{"GTUBE"}})
	if !spam.Spam || spam.Score != 7.5 || !strings.Contains(spam.Trace(), "classifier spam, score 7.5 (GTUBE)") {
		t.Fatalf("a classifier's spam is a signal: %+v %s", spam, spam.Trace())
	}
	down := submission.JudgeSpam(rules, nil, "", "", &submission.Classification{Unavailable: true})
	if down.Spam || !strings.Contains(down.Trace(), submission.MsgSpamCheckUnavailable) {
		t.Fatalf("an unavailable classifier is no signal (fail open): %s", down.Trace())
	}
}

func TestSpamGateModes(t *testing.T) {
	none := account.NewEntitlements()
	spamPolicy := func(mode form.SpamMode) func(*form.Settings) {
		return func(st *form.Settings) {
			st.Spam = form.Spam{Mode: mode, Rules: form.SpamRules{BlockWords: []string{"viagra"}, AllowIPs: []string{"192.0.2.0/24"}}}
		}
	}
	spammy := browser(field("message", "buy viagra"), field("subject", "Hello"))
	gate := func(v submission.Verdict) submission.GateResult {
		for _, g := range v.Gates() {
			if g.Gate == submission.GateSpam {
				return g
			}
		}
		t.Fatalf("no spam gate in %v", gateList(v))
		return submission.GateResult{}
	}

	t.Run("off skips the gate", func(t *testing.T) {
		v := submission.Judge(spammy, target(spamPolicy(form.SpamOff)), none)
		if g := gate(v); g.Outcome != submission.OutcomeSkipped || v.Err() != nil {
			t.Fatalf("off: %+v, %v", g, v.Err())
		}
	})
	t.Run("reject refuses with the content filter's message only", func(t *testing.T) {
		v := submission.Judge(spammy, target(spamPolicy(form.SpamReject)), none)
		var rejected *submission.RejectedError
		if err := v.Err(); err == nil || !errors.As(err, &rejected) || rejected.Gate != submission.GateSpam ||
			rejected.Message != submission.MsgSpamContent {
			t.Fatalf("reject: %v", err)
		}
	})
	t.Run("a dry run's trace names the rules", func(t *testing.T) {
		r := spammy
		r.DryRun = true
		v := submission.Judge(r, target(spamPolicy(form.SpamReject)), none)
		g := gate(v)
		if g.Outcome != submission.OutcomeFailed || !strings.Contains(g.Message, `blockWords matched "viagra"`) ||
			!strings.Contains(g.Message, "allowIps no match") || !strings.Contains(g.Message, "score 1") {
			t.Fatalf("dry run trace: %+v", g)
		}
	})
	t.Run("the spam gate comes right after the honeypot", func(t *testing.T) {
		gates := gateList(submission.Judge(spammy, target(spamPolicy(form.SpamTag)), none))
		for i, g := range gates {
			if strings.HasPrefix(g, "honeypot:") && (i+1 >= len(gates) || gates[i+1] != "spam:passed") {
				t.Fatalf("gates %v", gates)
			}
		}
	})
	t.Run("tag accepts and marks the plan", func(t *testing.T) {
		d := submission.Decide(submission.Facts{Request: spammy, Form: ptr(target(spamPolicy(form.SpamTag)))})
		if d.Refusal() != nil {
			t.Fatalf("tag must accept: %v", d.Refusal())
		}
		tag, ok := d.Plan().Spam()
		if !ok || tag.Score != 1 || len(tag.Reasons) != 1 {
			t.Fatalf("the plan must carry the verdict: %+v %v", tag, ok)
		}
		if got := d.Plan().Subject(); got != "[SPAM] Hello" {
			t.Fatalf("subject %q", got)
		}
	})
	t.Run("tag leaves clean submissions unmarked", func(t *testing.T) {
		d := submission.Decide(submission.Facts{Request: browser(field("message", "hello"), field("subject", "Hello")),
			Form: ptr(target(spamPolicy(form.SpamTag)))})
		if _, ok := d.Plan().Spam(); ok || d.Plan().Subject() != "Hello" {
			t.Fatalf("a clean submission is not tagged: %q", d.Plan().Subject())
		}
	})
	t.Run("hold accepts, plans the deliveries unmarked and holds them", func(t *testing.T) {
		d := submission.Decide(submission.Facts{Request: spammy, Form: ptr(target(spamPolicy(form.SpamHold)))})
		if d.Refusal() != nil {
			t.Fatalf("hold must accept: %v", d.Refusal())
		}
		held, ok := d.Plan().Held()
		if !ok || held.Score != 1 || len(held.Reasons) != 1 {
			t.Fatalf("the plan must be held with the verdict: %+v %v", held, ok)
		}
		if _, tagged := d.Plan().Spam(); tagged || d.Plan().Subject() != "Hello" {
			t.Fatalf("a held submission is not tagged: released, it goes out as the owner judged it, not spam (subject %q)", d.Plan().Subject())
		}
		if len(d.Plan().Deliveries()) == 0 {
			t.Fatal("a held submission keeps its planned deliveries, for a release")
		}
		if g := gate(d.Verdict()); g.Outcome != submission.OutcomePassed || !strings.HasPrefix(g.Message, submission.MsgSpamHeld) {
			t.Fatalf("trace: %+v", g)
		}
	})
	t.Run("hold leaves clean submissions to go out at once", func(t *testing.T) {
		d := submission.Decide(submission.Facts{Request: browser(field("message", "hello"), field("subject", "Hello")),
			Form: ptr(target(spamPolicy(form.SpamHold)))})
		if _, ok := d.Plan().Held(); ok {
			t.Fatal("a clean submission is not held")
		}
	})
	t.Run("an allowed IP is never tagged", func(t *testing.T) {
		r := spammy
		r.RemoteIP = "192.0.2.9"
		d := submission.Decide(submission.Facts{Request: r, Form: ptr(target(spamPolicy(form.SpamReject)))})
		if d.Refusal() != nil {
			t.Fatalf("allowIps wins: %v", d.Refusal())
		}
	})
}

func ptr[T any](v T) *T { return &v }
