package submission_test

import (
	"reflect"
	"testing"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

func TestDecideWithoutAFormRefusesAtTheAccessKey(t *testing.T) {
	for _, tt := range []struct {
		named bool
		want  string
	}{{false, submission.MsgAccessKeyMissing}, {true, submission.MsgAccessKeyUnknown}} {
		r := browser()
		r.NamesForm = tt.named
		d := submission.Decide(submission.Facts{Request: r})
		if _, asks := d.Question(); asks {
			t.Fatalf("named %v: a submission without a form asks nothing", tt.named)
		}
		if got := d.Refusal(); got == nil || got.Gate != submission.GateAccessKey || got.Message != tt.want {
			t.Errorf("named %v: refusal %+v, want %q at the access key", tt.named, got, tt.want)
		}
	}
}

func TestDecideAsksOnlyWhatItNeeds(t *testing.T) {
	tg := target()
	d := submission.Decide(submission.Facts{Request: browser(field("message", "hi")), Form: &tg})
	if q, asks := d.Question(); asks {
		t.Fatalf("a plain browser post asks %+v", q)
	}
	if d.Refusal() != nil {
		t.Fatalf("refused: %v", d.Refusal())
	}

	serverSide := browser(field("ccemail", "a@example.com"))
	serverSide.Origin = ""
	d = submission.Decide(submission.Facts{Request: serverSide, Form: &tg})
	q, asks := d.Question()
	if want := []string{account.FeatureServerSide, account.FeatureCC}; !asks || !reflect.DeepEqual(q.Features, want) || q.Usage {
		t.Fatalf("a server-side post with a cc asks %+v, want the features %v", q, want)
	}
	if d.Refusal() == nil {
		t.Fatal("an unfinished decision must refuse")
	}

	dry := browser()
	dry.DryRun = true
	if q, _ := submission.Decide(submission.Facts{Request: dry, Form: &tg}).Question(); !q.Usage {
		t.Error("a dry run reads the quota: it must ask for the usage")
	}
	test := browser()
	test.Test = true
	if q, _ := submission.Decide(submission.Facts{Request: test, Form: &tg}).Question(); !q.Usage {
		t.Error("a test submission reads the quota: it must ask for the usage")
	}
}

func TestDecideAsksForTheCaptchaThenDecides(t *testing.T) {
	tg := target(func(st *form.Settings) { st.Captcha = form.Captcha{Provider: form.CaptchaTurnstile, SiteKey: "site"} })
	r := browser(field(form.CaptchaTurnstile.TokenField(), "tok"))
	none := account.NewEntitlements()
	facts := submission.Facts{Request: r, Form: &tg, Entitlements: &none}
	q, asks := submission.Decide(facts).Question()
	if !asks || q.Captcha == nil || q.Captcha.Token != "tok" {
		t.Fatalf("asks %+v, want the token's verification", q)
	}
	facts.Request.Captcha = &submission.CaptchaOutcome{Status: submission.CaptchaVerified}
	d := submission.Decide(facts)
	if _, asks := d.Question(); asks || d.Refusal() != nil {
		t.Fatalf("a verified token: asks %v, refusal %v", asks, d.Refusal())
	}
}

func TestDecidePlansOnlyAnAcceptedSubmission(t *testing.T) {
	tg := target(func(st *form.Settings) { st.RedirectDefault = "https://example.com/thanks" })
	plain := browser(field("email", "me@example.org"))
	plain.JSONClient = false
	integrations := []form.Integration{{Type: form.IntegrationSlack, Enabled: true, TargetURL: "https://hooks.slack.com/x"}}
	d := submission.Decide(submission.Facts{Request: plain, Form: &tg, Integrations: integrations})
	routing := submission.Route(tg.Settings, tg.RecipientVerified, tg.VerifiedRoutes, plain.Fields)
	want := submission.PlanDeliveries(tg.Settings, plain.Envelope).WithRouting(routing).WithIntegrations(integrations)
	if !reflect.DeepEqual(d.Plan(), want) {
		t.Errorf("plan %+v, want %+v", d.Plan(), want)
	}
	if d.Redirect() != "https://example.com/thanks" {
		t.Errorf("redirect %q, want the form's default", d.Redirect())
	}

	spam := browser(field("botcheck", "on"))
	d = submission.Decide(submission.Facts{Request: spam, Form: &tg, Integrations: integrations})
	if d.Refusal() == nil || d.Refusal().Gate != submission.GateHoneypot {
		t.Fatalf("refusal %v, want the honeypot", d.Refusal())
	}
	if len(d.Plan().Deliveries()) != 1 || d.Plan().Recipient() != "" || d.Redirect() != "" {
		t.Errorf("a refused submission plans nothing: %+v, redirect %q", d.Plan(), d.Redirect())
	}
}

func TestDecideTracesADryRunAsJudgeDoes(t *testing.T) {
	tg := target()
	u := account.Usage{Plan: account.PlanFree, Quota: 10, Used: 10}
	tg.Usage = &u
	r := browser(field("botcheck", "on"))
	r.DryRun = true
	none := account.NewEntitlements()
	d := submission.Decide(submission.Facts{Request: r, Form: &tg, Entitlements: &none})
	if want := submission.Judge(r, tg, none).Gates(); !reflect.DeepEqual(d.Verdict().Gates(), want) {
		t.Errorf("gates %+v, want %+v", d.Verdict().Gates(), want)
	}
}
