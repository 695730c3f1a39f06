package submission_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

func target(mutate ...func(*form.Settings)) submission.Target {
	st := form.Settings{Name: "Contact", RecipientEmail: "inbox@example.com", AllowedDomains: []string{"example.com", "*.shop.example"}}
	for _, m := range mutate {
		m(&st)
	}
	return submission.Target{Settings: st.Normalize(), RecipientVerified: true}
}

// browser is a JSON post from https://example.com with the given fields.
func browser(fields ...submission.Field) submission.Request {
	env, _ := submission.Split(fields)
	return submission.Request{Fields: fields, Envelope: env, Origin: "https://example.com", JSONClient: true, RemoteIP: "203.0.113.7"}
}

func field(name, value string) submission.Field { return submission.Field{Name: name, Value: value} }

func TestJudge(t *testing.T) {
	all := account.NewEntitlements(account.FeatureServerSide, account.FeatureCC, account.FeatureWebhook, account.FeatureCrossRedirect,
		account.FeatureUploads)
	none := account.NewEntitlements()
	pdf := submission.File{Field: "attachment", Name: "cv.pdf", DeclaredType: "application/pdf", Size: 9, Detected: []string{"application/pdf"}}
	uploads := func(st *form.Settings) { st.UploadsEnabled = true }
	fileRule := func(st *form.Settings) {
		st.Validation.Fields = []form.FieldRule{{Field: "attachment", File: &form.FileRule{Required: true}}}
	}
	emailRule := func(st *form.Settings) {
		st.Validation.Fields = []form.FieldRule{{Field: "email", Required: true, Type: "email"}}
	}
	tests := []struct {
		name     string
		req      func() submission.Request
		target   submission.Target
		ent      account.Entitlements
		wantGate string // the failed gate; empty: accepted
		wantMsg  string
	}{
		{"a plain browser post passes", func() submission.Request { return browser(field("message", "hi")) }, target(), none, "", ""},
		{"an unverified recipient refuses live posts", func() submission.Request { return browser() },
			submission.Target{Settings: target().Settings}, none, submission.GateRecipientVerified, submission.MsgRecipientUnverified},
		{"an origin outside allowedDomains", func() submission.Request {
			r := browser()
			r.Origin = "https://evil.example.net"
			return r
		}, target(), all, submission.GateOrigin, submission.MsgOriginNotAllowed},
		{"a wildcard subdomain is allowed", func() submission.Request {
			r := browser()
			r.Origin = "https://a.shop.example"
			return r
		}, target(), none, "", ""},
		{"the referer counts when there is no origin", func() submission.Request {
			r := browser()
			r.Origin, r.Referer = "", "https://example.com/contact"
			return r
		}, target(), none, "", ""},
		{"an unusable origin is refused", func() submission.Request {
			r := browser()
			r.Origin = "null"
			return r
		}, target(), all, submission.GateOrigin, submission.MsgOriginNotAllowed},
		{"any origin without allowedDomains", func() submission.Request {
			r := browser()
			r.Origin = "https://anywhere.example.org"
			return r
		}, target(func(st *form.Settings) { st.AllowedDomains = nil }), none, "", ""},
		{"server-side without the entitlement", func() submission.Request {
			r := browser()
			r.Origin = ""
			return r
		}, target(), none, submission.GateServerSide, submission.MsgServerSideNoPlan},
		{"server-side from an unlisted IP", func() submission.Request {
			r := browser()
			r.Origin = ""
			return r
		}, target(func(st *form.Settings) { st.AllowedSenderIPs = []string{"198.51.100.1"} }), all, submission.GateServerSide, submission.MsgServerSideIP},
		{"server-side from a listed IP", func() submission.Request {
			r := browser()
			r.Origin = ""
			return r
		}, target(func(st *form.Settings) { st.AllowedSenderIPs = []string{"203.0.113.7"} }), all, "", ""},
		{"a filled honeypot", func() submission.Request { return browser(field("botcheck", "yes")) }, target(), none, submission.GateHoneypot, submission.MsgSpam},
		{"a redirect that is not https", func() submission.Request {
			r := browser(field("redirect", "http://example.com/thanks"))
			r.JSONClient = false
			return r
		}, target(), all, submission.GateRedirect, submission.MsgRedirectInvalid},
		{"a same-site redirect needs nothing", func() submission.Request {
			r := browser(field("redirect", "https://example.com/thanks"))
			r.JSONClient = false
			return r
		}, target(), none, "", ""},
		{"a cross-site redirect without the entitlement", func() submission.Request {
			r := browser(field("redirect", "https://elsewhere.example.org/thanks"))
			r.JSONClient = false
			return r
		}, target(), none, submission.GateRedirect, submission.MsgRedirectCrossDomain},
		{"a cross-site redirect with the entitlement", func() submission.Request {
			r := browser(field("redirect", "https://elsewhere.example.org/thanks"))
			r.JSONClient = false
			return r
		}, target(), all, "", ""},
		{"a JSON client's redirect is ignored", func() submission.Request {
			return browser(field("redirect", "http://not-checked"))
		}, target(), none, "", ""},
		{"an invalid replyto", func() submission.Request { return browser(field("replyto", "Ann <a@example.com>")) },
			target(), all, submission.GatePaidFeatures, submission.MsgReplyToInvalid},
		{"ccemail without the entitlement", func() submission.Request { return browser(field("ccemail", "a@example.com")) },
			target(), none, submission.GatePaidFeatures, submission.MsgCCNotEntitled},
		{"ccemail with a bad address", func() submission.Request { return browser(field("ccemail", "a@example.com; nope")) },
			target(), all, submission.GatePaidFeatures, submission.MsgCCInvalid},
		{"ccemail with too many addresses", func() submission.Request {
			return browser(field("ccemail", "a@x.com,b@x.com,c@x.com,d@x.com,e@x.com,f@x.com,g@x.com,h@x.com,i@x.com,j@x.com,k@x.com"))
		}, target(), all, submission.GatePaidFeatures, submission.MsgCCInvalid},
		{"ccemail with the entitlement", func() submission.Request { return browser(field("ccemail", "a@example.com; b@example.com")) },
			target(), all, "", ""},
		{"a webhook without the entitlement", func() submission.Request { return browser(field("webhook", "https://hooks.example.com")) },
			target(), none, submission.GatePaidFeatures, submission.MsgWebhookNotEntitled},
		{"a webhook that is not https", func() submission.Request { return browser(field("webhook", "http://hooks.example.com")) },
			target(), all, submission.GatePaidFeatures, submission.MsgWebhookInvalid},
		{"files on a form without uploads", func() submission.Request {
			r := browser()
			r.Files = []submission.File{pdf}
			return r
		}, target(), all, submission.GateUploads, submission.MsgUploadsDisabled},
		{"files without the file_uploads entitlement", func() submission.Request {
			r := browser()
			r.Files = []submission.File{pdf}
			return r
		}, target(uploads), none, submission.GateUploads, submission.MsgUploadsNotEntitled},
		{"files on a form with uploads", func() submission.Request {
			r := browser()
			r.Files = []submission.File{pdf}
			return r
		}, target(uploads), all, "", ""},
		{"a file the form's limits refuse", func() submission.Request {
			r := browser()
			r.Files = []submission.File{pdf, pdf}
			return r
		}, target(uploads, func(st *form.Settings) { st.UploadLimits.MaxFiles = 1 }), all, submission.GateUploads,
			"Too many files: this form accepts at most 1 per submission, 2 were sent."},
		{"a required file missing", func() submission.Request { return browser() },
			target(uploads, fileRule), all, submission.GateFields, submission.MsgValidationFailed},
		{"a file rule on a form without uploads is not run", func() submission.Request { return browser() },
			target(fileRule), all, "", ""},
		{"a broken field rule", func() submission.Request { return browser(field("email", "nope")) },
			target(emailRule), none, submission.GateFields, submission.MsgValidationFailed},
		{"a kept field rule", func() submission.Request { return browser(field("email", "ada@example.com")) },
			target(emailRule), none, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := submission.Judge(tt.req(), tt.target, tt.ent)
			err := v.Err()
			if tt.wantGate == "" {
				if err != nil {
					t.Fatalf("Err() = %v, want accepted; gates %+v", err, v.Gates())
				}
				for _, g := range v.Gates() {
					if g.Outcome == submission.OutcomeFailed {
						t.Errorf("accepted with a failed gate %+v", g)
					}
				}
				return
			}
			var rejected *submission.RejectedError
			if !errors.As(err, &rejected) || rejected.Gate != tt.wantGate || rejected.Message != tt.wantMsg {
				t.Fatalf("Err() = %#v, want gate %s with %q", err, tt.wantGate, tt.wantMsg)
			}
			last := v.Gates()[len(v.Gates())-1]
			if last.Gate != tt.wantGate || last.Outcome != submission.OutcomeFailed {
				t.Errorf("a live judgement stops at the failed gate; last is %+v", last)
			}
		})
	}
}

func TestJudgeNeedsOnlyTheFeaturesItNames(t *testing.T) {
	all := []string{account.FeatureServerSide, account.FeatureCC, account.FeatureWebhook, account.FeatureCrossRedirect}
	requests := map[string]submission.Request{
		"browser":     browser(field("message", "hi")),
		"server-side": func() submission.Request { r := browser(); r.Origin = ""; return r }(),
		"cc":          browser(field("ccemail", "a@example.com")),
		"webhook":     browser(field("webhook", "https://hooks.example.com")),
		"same-site redirect": func() submission.Request {
			r := browser(field("redirect", "https://example.com/thanks"))
			r.JSONClient = false
			return r
		}(),
		"cross-site redirect": func() submission.Request {
			r := browser(field("redirect", "https://elsewhere.example.org/thanks"))
			r.JSONClient = false
			return r
		}(),
	}
	wantNeeds := map[string][]string{
		"server-side": {account.FeatureServerSide}, "cc": {account.FeatureCC}, "webhook": {account.FeatureWebhook},
		"cross-site redirect": {account.FeatureCrossRedirect},
	}
	tg := target(func(st *form.Settings) { st.AllowedSenderIPs = []string{"203.0.113.7"} })
	for name, r := range requests {
		needs := submission.FeaturesJudged(r, tg.Settings)
		if !slices.Equal(needs, wantNeeds[name]) {
			t.Errorf("%s: FeaturesJudged = %v, want %v", name, needs, wantNeeds[name])
		}
		// Given only the features it names, Judge decides as it would knowing all.
		full := submission.Judge(r, tg, account.NewEntitlements(all...))
		named := submission.Judge(r, tg, account.NewEntitlements(needs...))
		if !reflect.DeepEqual(full.Gates(), named.Gates()) {
			t.Errorf("%s: with all features %+v, with the named ones %+v", name, full.Gates(), named.Gates())
		}
	}
}

func TestADryRunReportsEveryGate(t *testing.T) {
	r := browser(field("botcheck", "on"), field("ccemail", "a@example.com"))
	r.Origin, r.DryRun = "https://evil.example.net", true
	v := submission.Judge(r, submission.Target{Settings: target().Settings}, account.NewEntitlements())
	got := make([]string, 0, len(v.Gates()))
	for _, g := range v.Gates() {
		got = append(got, g.Gate+":"+g.Outcome)
	}
	want := []string{"access_key:passed", "recipient_verified:skipped", "origin:failed", "server_side:skipped", "captcha:skipped",
		"honeypot:failed", "spam:skipped", "redirect:skipped", "paid_features:failed", "uploads:skipped", "fields:passed"}
	if !slices.Equal(got, want) {
		t.Fatalf("gates %v, want %v", got, want)
	}
	var rejected *submission.RejectedError
	if !errors.As(v.Err(), &rejected) || rejected.Gate != submission.GateOrigin {
		t.Fatalf("Err() = %v, want the first failure (origin)", v.Err())
	}
}

func TestNoForm(t *testing.T) {
	for _, tt := range []struct {
		missing bool
		want    string
	}{{true, submission.MsgAccessKeyMissing}, {false, submission.MsgAccessKeyUnknown}} {
		v := submission.NoForm(true, tt.missing)
		var rejected *submission.RejectedError
		if !errors.As(v.Err(), &rejected) || rejected.Gate != submission.GateAccessKey || rejected.Message != tt.want {
			t.Errorf("missing=%v: Err() = %v, want %q", tt.missing, v.Err(), tt.want)
		}
		if g := v.Gates(); len(g) != 1 || g[0].Outcome != submission.OutcomeFailed || g[0].Message != tt.want {
			t.Errorf("missing=%v: gates %+v", tt.missing, g)
		}
	}
}
