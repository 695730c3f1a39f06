package submission_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

func withCaptcha(c form.Captcha) func(*form.Settings) {
	return func(st *form.Settings) { st.Captcha = c }
}

var (
	hcaptcha = form.Captcha{Provider: form.CaptchaHCaptcha, SiteKey: "site", SecretID: "sec"}
	v3       = form.Captcha{Provider: form.CaptchaRecaptchaV3, SiteKey: "site", MinScore: 0.5, SecretID: "sec"}
	pow      = form.Captcha{Provider: form.CaptchaFormd}
)

func outcome(status submission.CaptchaStatus, score ...float64) *submission.CaptchaOutcome {
	o := &submission.CaptchaOutcome{Status: status}
	if len(score) > 0 {
		o.Score = &score[0]
	}
	return o
}

func gateList(v submission.Verdict) []string {
	var out []string
	for _, g := range v.Gates() {
		out = append(out, g.Gate+":"+g.Outcome)
	}
	return out
}

func TestTheCaptchaGateWaitsForItsVerification(t *testing.T) {
	r := browser(field("message", "hi"), field("h-captcha-response", " tok-1 "))
	tg := target(withCaptcha(hcaptcha))
	v := submission.Judge(r, tg, account.NewEntitlements())
	check, ok := v.CaptchaCheck()
	if !ok || check != (submission.CaptchaCheck{Provider: form.CaptchaHCaptcha, Token: "tok-1"}) {
		t.Fatalf("CaptchaCheck = %+v, %v; want hcaptcha's trimmed token", check, ok)
	}
	var rejected *submission.RejectedError
	if !errors.As(v.Err(), &rejected) || rejected.Gate != submission.GateCaptcha {
		t.Fatalf("an unfinished verdict must refuse, got %v", v.Err())
	}
	if want := []string{"access_key:passed", "recipient_verified:passed", "origin:passed", "server_side:skipped"}; !slices.Equal(gateList(v), want) {
		t.Fatalf("gates judged before the verification %v, want %v", gateList(v), want)
	}

	r.Captcha = outcome(submission.CaptchaVerified)
	v = submission.Judge(r, tg, account.NewEntitlements())
	if _, pending := v.CaptchaCheck(); pending || v.Err() != nil {
		t.Fatalf("verified: pending %v, err %v", pending, v.Err())
	}
	want := []string{"access_key:passed", "recipient_verified:passed", "origin:passed", "server_side:skipped", "captcha:passed",
		"honeypot:passed", "spam:skipped", "redirect:skipped", "paid_features:passed", "uploads:skipped", "fields:passed"}
	if !slices.Equal(gateList(v), want) {
		t.Fatalf("gates %v, want %v", gateList(v), want)
	}
}

func TestAnEarlierRefusalCostsNoVerification(t *testing.T) {
	r := browser(field("h-captcha-response", "tok"))
	r.Origin = "https://evil.example.net"
	v := submission.Judge(r, target(withCaptcha(hcaptcha)), account.NewEntitlements())
	if _, pending := v.CaptchaCheck(); pending {
		t.Fatal("a live post the origin gate refused asked for a captcha verification")
	}
	r.DryRun = true
	v = submission.Judge(r, target(withCaptcha(hcaptcha)), account.NewEntitlements())
	if _, pending := v.CaptchaCheck(); !pending {
		t.Fatal("a dry run judges every gate: it must ask for the verification too")
	}
}

func TestCaptchaGate(t *testing.T) {
	tests := []struct {
		name    string
		captcha form.Captcha
		fields  []submission.Field
		outcome *submission.CaptchaOutcome
		wantMsg string // empty: passed
	}{
		{"a form without captcha skips it", form.Captcha{}, nil, nil, ""},
		{"a missing token", hcaptcha, nil, nil, submission.MsgCaptchaMissing(form.CaptchaHCaptcha)},
		{"a blank token", hcaptcha, []submission.Field{field("h-captcha-response", "  ")}, nil, submission.MsgCaptchaMissing(form.CaptchaHCaptcha)},
		{"another provider's field", hcaptcha, []submission.Field{field("cf-captcha-response", "tok")}, nil, submission.MsgCaptchaMissing(form.CaptchaHCaptcha)},
		{"a field name in another case", hcaptcha, []submission.Field{field("H-Captcha-Response", "tok")}, outcome(submission.CaptchaVerified), ""},
		{"a verified token", hcaptcha, []submission.Field{field("h-captcha-response", "tok")}, outcome(submission.CaptchaVerified), ""},
		{"an invalid token", hcaptcha, []submission.Field{field("h-captcha-response", "tok")}, outcome(submission.CaptchaInvalid), submission.MsgCaptchaInvalid},
		{"an expired token", hcaptcha, []submission.Field{field("h-captcha-response", "tok")}, outcome(submission.CaptchaExpired), submission.MsgCaptchaExpired},
		{"a refused secret", hcaptcha, []submission.Field{field("h-captcha-response", "tok")}, outcome(submission.CaptchaMisconfigured), submission.MsgCaptchaMisconfig},
		{"no verdict: fail closed", hcaptcha, []submission.Field{field("h-captcha-response", "tok")}, outcome(submission.CaptchaUnavailable), submission.MsgCaptchaUnavailable},
		{"an unknown status fails", hcaptcha, []submission.Field{field("h-captcha-response", "tok")}, outcome("what"), submission.MsgCaptchaInvalid},
		{"v3 at the minimum score", v3, []submission.Field{field("captcha_response", "tok")}, outcome(submission.CaptchaVerified, 0.5), ""},
		{"v3 below the minimum score", v3, []submission.Field{field("captcha_response", "tok")}, outcome(submission.CaptchaVerified, 0.4), submission.MsgCaptchaLowScore},
		{"v3 without a score", v3, []submission.Field{field("captcha_response", "tok")}, outcome(submission.CaptchaVerified), submission.MsgCaptchaLowScore},
		{"v2 ignores a score", form.Captcha{Provider: form.CaptchaRecaptchaV2, SiteKey: "s", SecretID: "x"},
			[]submission.Field{field("g-captcha-response", "tok")}, outcome(submission.CaptchaVerified, 0.1), ""},
		{"a missing proof of work", pow, nil, nil, submission.MsgProofMissing},
		{"a proof of work", pow, []submission.Field{field("altcha", "eyJ9")}, outcome(submission.CaptchaVerified), ""},
		{"a forged proof of work", pow, []submission.Field{field("altcha", "eyJ9")}, outcome(submission.CaptchaInvalid), submission.MsgProofInvalid},
		{"an expired proof of work", pow, []submission.Field{field("altcha", "eyJ9")}, outcome(submission.CaptchaExpired), submission.MsgProofExpired},
		{"a replayed proof of work", pow, []submission.Field{field("altcha", "eyJ9")}, outcome(submission.CaptchaReplayed), submission.MsgProofReplayed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := browser(tt.fields...)
			r.Captcha = tt.outcome
			v := submission.Judge(r, target(withCaptcha(tt.captcha)), account.NewEntitlements())
			if _, pending := v.CaptchaCheck(); pending {
				t.Fatal("judged with its outcome, the verdict still waits")
			}
			var rejected *submission.RejectedError
			switch {
			case tt.wantMsg == "" && v.Err() != nil:
				t.Fatalf("refused: %v", v.Err())
			case tt.wantMsg != "" && (!errors.As(v.Err(), &rejected) || rejected.Gate != submission.GateCaptcha || rejected.Message != tt.wantMsg):
				t.Fatalf("Err() = %v, want the captcha gate's %q", v.Err(), tt.wantMsg)
			}
		})
	}
}

func TestTheMissingTokenMessageNamesTheField(t *testing.T) {
	for _, p := range []form.CaptchaProvider{form.CaptchaRecaptchaV2, form.CaptchaRecaptchaV3, form.CaptchaHCaptcha, form.CaptchaTurnstile, form.CaptchaFormd} {
		if msg := submission.MsgCaptchaMissing(p); !strings.Contains(msg, p.TokenField()) {
			t.Errorf("%s: %q does not name %s", p, msg, p.TokenField())
		}
	}
}

func TestCaptchaTokensAreNeverForwarded(t *testing.T) {
	_, data := submission.Split([]submission.Field{field("message", "hi"), field("g-captcha-response", "a"), field("captcha_response", "b"),
		field("h-captcha-response", "c"), field("cf-captcha-response", "d"), field("altcha", "e")})
	if len(data) != 1 || data[0].Name != "message" {
		t.Fatalf("forwarded %+v, want the message only", data)
	}
}
