package submission

import (
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
)

// Facts is what the caller knows of a submission when it asks for a
// decision. What a decision asks for (Question) is added here before the
// caller asks again.
type Facts struct {
	Request Request
	// Form is the form the request is routed to; nil when it names no form
	// or its key matches none.
	Form *Target
	// Integrations are the form's integrations, planned once it is accepted.
	Integrations []form.Integration
	// Entitlements are the account's holdings among the features a
	// decision asked for; nil until they are looked up.
	Entitlements *account.Entitlements
	// AutoresponderDefaults are formd's autoresponder words in the
	// submitter's language, for a form that has none of its own.
	AutoresponderDefaults MailText
}

// Question is what a decision waits for: the caller looks it up, adds it
// to the Facts and asks again. Judging does no I/O, and a post that needs
// none of it (a plain browser post without a captcha) is decided at once.
type Question struct {
	// Features are the entitlements to look up (Facts.Entitlements); nil
	// when none is asked for.
	Features []string
	// Usage asks for the account's quota usage this month (Target.Usage):
	// a dry run's or a test's quota is read, a live one's taken at commit.
	Usage bool
	// Captcha is the token verification to make (Request.Captcha).
	Captcha *CaptchaCheck
	// Spam is the content classification to ask for (Request.Classification).
	Spam *SpamCheck
}

// Decision is the domain's answer on one submission: the gates' verdict
// and, for an accepted one, what it sends and where a plain post goes next.
// An unfinished decision asks a Question and refuses until it is answered.
type Decision struct {
	verdict  Verdict
	question Question
	asks     bool
	plan     Plan
	redirect string
}

// Decide judges a submission from the facts: every gate in the spec's
// order and, when they accept it, its delivery plan and redirect.
func Decide(f Facts) Decision {
	r := f.Request
	if f.Form == nil {
		return Decision{verdict: NoForm(r.DryRun, !r.NamesForm)}
	}
	t := *f.Form
	var q Question
	if f.Entitlements == nil {
		q.Features = FeaturesJudged(r, t.Settings)
	}
	q.Usage = (r.DryRun || r.Test) && t.Usage == nil
	if len(q.Features) > 0 || q.Usage {
		return Decision{verdict: unfinished(r), question: q, asks: true}
	}
	ent := account.NewEntitlements()
	if f.Entitlements != nil {
		ent = *f.Entitlements
	}
	v := Judge(r, t, ent)
	if check, ok := v.CaptchaCheck(); ok {
		return Decision{verdict: v, question: Question{Captcha: &check}, asks: true}
	}
	if check, ok := v.SpamCheck(); ok {
		return Decision{verdict: v, question: Question{Spam: &check}, asks: true}
	}
	d := Decision{verdict: v}
	if v.Err() == nil {
		routing := Route(t.Settings, t.RecipientVerified, t.VerifiedRoutes, r.Fields)
		d.plan = PlanDeliveries(t.Settings, r.Envelope).WithRouting(routing).WithIntegrations(f.Integrations).
			WithAutoresponderDefaults(t.Settings, f.AutoresponderDefaults)
		if tag, ok := v.SpamTag(); ok {
			d.plan = d.plan.TaggedSpam(tag)
		}
		if held, ok := v.SpamHeld(); ok {
			d.plan = d.plan.HeldSpam(held)
		}
		d.redirect = Redirect(t.Settings, r.Envelope, r.JSONClient)
	}
	return d
}

// unfinished is the verdict of a decision that waits for a lookup: it
// refuses (fail closed) until the lookup is answered.
func unfinished(r Request) Verdict {
	return Verdict{dryRun: r.DryRun, unjudged: true}
}

// Question is what the decision waits for; false when it is final.
func (d Decision) Question() (Question, bool) { return d.question, d.asks }

// Verdict is the gates' judgement, gate by gate.
func (d Decision) Verdict() Verdict { return d.verdict }

// Refusal is the gate that refused the submission, with its message; nil
// when every gate accepted it.
func (d Decision) Refusal() *RejectedError {
	if err := d.verdict.Err(); err != nil {
		return err.(*RejectedError)
	}
	return nil
}

// Plan is what an accepted submission sends.
func (d Decision) Plan() Plan { return d.plan }

// Redirect is where an accepted plain HTML post goes next; blank means the
// hosted success page.
func (d Decision) Redirect() string { return d.redirect }
