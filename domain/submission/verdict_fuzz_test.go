package submission_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// FuzzJudge checks the gates' invariants on arbitrary requests: Judge never
// panics; a dry run reports all ten gates in order; a live judgement stops
// at its first failure, which Err names; a passed judgement has no failed gate.
// A form with a captcha is judged as the application does: once to learn the
// check to make, again with an outcome, which then finishes the judgement.
func FuzzJudge(f *testing.F) {
	f.Add("https://example.com", "", "203.0.113.7", "", "ada@example.com", "", "", "", false, false, false, true, false, "", uint8(0), 0.0)
	f.Add("", "https://example.com/x", "::1", "on", "x", "a@b.co;c", "https://h.example", "http://r", true, true, true, false, true, "tok", uint8(1), 0.9)
	f.Add("null", "", "", "", "", "", "", "https://elsewhere.example.org/", false, false, true, true, true, "", uint8(0), 0.1)
	f.Add("https://example.com", "", "203.0.113.7", "", "ada@example.com", "", "", "", false, false, true, true, true, "tok", uint8(0), 0.4)
	order := []string{submission.GateAccessKey, submission.GateRecipientVerified, submission.GateOrigin, submission.GateServerSide,
		submission.GateCaptcha, submission.GateHoneypot, submission.GateSpam, submission.GateRedirect, submission.GatePaidFeatures, submission.GateUploads, submission.GateFields}
	statuses := []submission.CaptchaStatus{submission.CaptchaVerified, submission.CaptchaInvalid, submission.CaptchaExpired,
		submission.CaptchaReplayed, submission.CaptchaMisconfigured, submission.CaptchaUnavailable}
	f.Fuzz(func(t *testing.T, origin, referer, ip, botcheck, email, cc, webhook, redirect string, dryRun, files, jsonClient, verified,
		captcha bool, token string, status uint8, score float64) {
		fields := []submission.Field{{Name: "botcheck", Value: botcheck}, {Name: "email", Value: email},
			{Name: "ccemail", Value: cc}, {Name: "webhook", Value: webhook}, {Name: "redirect", Value: redirect},
			{Name: "captcha_response", Value: token}}
		env, _ := submission.Split(fields)
		r := submission.Request{Fields: fields, Envelope: env, Origin: origin, Referer: referer, RemoteIP: ip,
			JSONClient: jsonClient, DryRun: dryRun}
		if files {
			r.Files = []submission.File{{Field: "attachment", Name: "cv.pdf", DeclaredType: "application/pdf", Size: 9,
				Detected: []string{"application/pdf"}}}
		}
		st := form.Settings{Name: "C", RecipientEmail: "inbox@example.com", AllowedDomains: []string{"example.com"},
			AllowedSenderIPs: []string{"203.0.113.7"},
			Validation:       form.ValidationSettings{Fields: []form.FieldRule{{Field: "email", Type: "email"}}}}.Normalize()
		if captcha {
			st.Captcha = form.Captcha{Provider: form.CaptchaRecaptchaV3, SiteKey: "k", MinScore: 0.5, SecretID: "s"}
		}
		ent := account.NewEntitlements(submission.FeaturesJudged(r, st)...)
		v := submission.Judge(r, submission.Target{Settings: st, RecipientVerified: verified}, ent)
		if check, pending := v.CaptchaCheck(); pending {
			if !captcha || check.Token != strings.TrimSpace(token) || check.Token == "" || v.Err() == nil {
				t.Fatalf("asked to verify %+v (captcha %v, token %q), err %v", check, captcha, token, v.Err())
			}
			r.Captcha = &submission.CaptchaOutcome{Status: statuses[int(status)%len(statuses)], Score: &score}
			v = submission.Judge(r, submission.Target{Settings: st, RecipientVerified: verified}, ent)
			if _, again := v.CaptchaCheck(); again {
				t.Fatal("judged with its outcome, the verdict still waits")
			}
		}
		gates := v.Gates()
		var rejected *submission.RejectedError
		failed := errors.As(v.Err(), &rejected)
		if dryRun {
			if len(gates) != len(order) {
				t.Fatalf("a dry run reported %d gates: %+v", len(gates), gates)
			}
			for i, g := range gates {
				if g.Gate != order[i] {
					t.Fatalf("gate %d is %s, want %s", i, g.Gate, order[i])
				}
			}
		} else if failed {
			last := gates[len(gates)-1]
			if last.Gate != rejected.Gate || last.Outcome != submission.OutcomeFailed || last.Message != rejected.Message {
				t.Fatalf("a live judgement went on after %s failed: %+v", rejected.Gate, gates)
			}
		}
		firstFailure := ""
		for _, g := range gates {
			if g.Outcome == submission.OutcomeFailed && firstFailure == "" {
				firstFailure = g.Gate
			}
		}
		if failed != (firstFailure != "") || (failed && rejected.Gate != firstFailure) {
			t.Fatalf("Err() = %v, first failed gate %q", v.Err(), firstFailure)
		}
	})
}
