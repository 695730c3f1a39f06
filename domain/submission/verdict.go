package submission

import (
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
)

// Request is a submission as the gates see it: its fields and what the HTTP
// request said about where it came from.
type Request struct {
	// Fields in submitted order, routing fields included: field rules judge
	// every value that was sent, `subject` and `replyto` too.
	Fields   []Field
	Envelope Envelope
	Origin   string
	Referer  string
	RemoteIP string
	// Files are the file parts the post carried, as metadata and sniffed type.
	Files []File
	// JSONClient is a script that reads a JSON answer; it is never redirected.
	JSONClient bool
	// DryRun evaluates every gate and reports each; nothing is committed.
	DryRun bool
	// Test is a test submission: judged like a live one, but its quota is
	// only read, as a dry run's is, since nothing is committed.
	Test bool
	// NamesForm says the request names a form (an access key, or a form id
	// for an owner's dry run); one that names none is refused as missing
	// its access key, one whose form is not found as naming an unknown one.
	NamesForm bool
	// Captcha is the outcome of the verification a previous judgement
	// asked for (Verdict.CaptchaCheck); nil until it was made.
	Captcha *CaptchaOutcome
	// SpamClassifier says a content classifier is configured: the spam
	// gate of a form whose spam mode is not off asks for its answer
	// (Verdict.SpamCheck).
	SpamClassifier bool
	// Classification is a content classifier's answer for the spam gate;
	// nil when none was asked for.
	Classification *Classification
}

// Target is what the gates know of the form a submission is routed to.
type Target struct {
	Settings          form.Settings
	RecipientVerified bool
	// VerifiedRoutes are the routing recipients whose own link was
	// followed (form.RouteVerified).
	VerifiedRoutes []string
	// Usage is the account's quota usage this month, for a dry run or a
	// test (Decide asks for it). A live submission has none: its quota is
	// taken when it is committed, where a refusal becomes OverQuota.
	Usage *account.Usage
}

// Verdict is the gates' judgement of one submission. A live submission stops
// at its first failed gate; a dry run is judged by every gate, so an
// integrator sees each outcome.
type Verdict struct {
	dryRun bool
	gates  []GateResult
	failed *GateResult
	errors []FieldError
	until  time.Time
	// pending is the captcha verification judgement waits for.
	pending *CaptchaCheck
	// unjudged is a decision's verdict before the lookups it asked for
	// (Question): no gate ran.
	unjudged bool
	// spamPending is the classification the spam gate waits for.
	spamPending *SpamCheck
	// spamCheck is what the classification came to (SpamCheckResult).
	spamCheck string
	// spam is the spam gate's verdict on a submission it judged spam and
	// accepted: tagged, or held when held is true.
	spam *SpamVerdict
	held bool
}

// SpamTag is the spam gate's verdict on a submission accepted but tagged as
// spam (the form's tag mode); false when it was not tagged.
func (v Verdict) SpamTag() (SpamVerdict, bool) {
	if v.spam == nil || v.held {
		return SpamVerdict{}, false
	}
	return *v.spam, true
}

// SpamHeld is the spam gate's verdict on a submission accepted but held for
// the form's Spam folder (its hold mode); false when it was not held.
func (v Verdict) SpamHeld() (SpamVerdict, bool) {
	if v.spam == nil || !v.held {
		return SpamVerdict{}, false
	}
	return *v.spam, true
}

// Gates are the outcomes in the order the gates were checked.
func (v Verdict) Gates() []GateResult { return v.gates }

// FieldErrors are the broken field rules, when the fields gate ran.
func (v Verdict) FieldErrors() []FieldError { return v.errors }

// DryRun reports whether this was a dry run's judgement.
func (v Verdict) DryRun() bool { return v.dryRun }

// Err is nil for an accepted submission, else a *RejectedError naming the
// first gate that failed. An unfinished verdict (one waiting for a captcha
// verification) is refused by the captcha gate, and one waiting for a
// lookup or a classification by none: it never reads as accepted.
func (v Verdict) Err() error {
	if v.unjudged {
		return &RejectedError{Message: MsgUnjudged}
	}
	if v.pending != nil {
		return &RejectedError{Gate: GateCaptcha, Message: MsgCaptchaUnavailable}
	}
	if v.spamPending != nil {
		return &RejectedError{Message: MsgUnjudged}
	}
	if v.failed == nil {
		return nil
	}
	return &RejectedError{Gate: v.failed.Gate, Message: v.failed.Message, Until: v.until}
}

// OverQuota is the verdict on a live submission every gate accepted but the
// commit refused: the account's monthly quota was used up.
func OverQuota(u account.Usage) Verdict {
	r := GateResult{Gate: GateQuota, Outcome: OutcomeFailed, Message: u.ExhaustedMessage()}
	return Verdict{gates: []GateResult{r}, failed: &r, until: u.ResetsAt()}
}

// NoForm is the verdict on a submission that names no form: its access key
// is missing or matches none, so no other gate can be judged.
func NoForm(dryRun, keyMissing bool) Verdict {
	msg := MsgAccessKeyUnknown
	if keyMissing {
		msg = MsgAccessKeyMissing
	}
	r := GateResult{Gate: GateAccessKey, Outcome: OutcomeFailed, Message: msg}
	return Verdict{dryRun: dryRun, gates: []GateResult{r}, failed: &r}
}

// check records a gate's outcome (failure empty: passed) and reports whether
// judgement goes on.
func (v *Verdict) check(gate, failure string) bool {
	if v.failed != nil && !v.dryRun {
		return false
	}
	r := GateResult{Gate: gate, Outcome: OutcomePassed}
	if failure != "" {
		r.Outcome, r.Message = OutcomeFailed, failure
	}
	v.gates = append(v.gates, r)
	if failure != "" && v.failed == nil {
		v.failed = &r
	}
	return v.dryRun || v.failed == nil
}

func (v *Verdict) skip(gate, why string) {
	v.gates = append(v.gates, GateResult{Gate: gate, Outcome: OutcomeSkipped, Message: why})
}

// judgeSource is the rule of where a request may come from, the same for a
// submission and an upload reservation: a browser's (Origin or Referer)
// host must be in the form's allowedDomains when it lists any; a request
// without either is a server-side one, which needs the entitlement and,
// when the form lists allowedSenderIPs, one of them. failure is "" when
// the source is allowed.
func judgeSource(origin, referer, remoteIP string, st form.Settings, ent account.Entitlements) (host string, browser bool, failure string) {
	host, browser = requestHost(origin, referer)
	switch {
	case browser:
		allowed := len(st.AllowedDomains) == 0 || (host != "" && form.HostAllowed(st.AllowedDomains, host))
		failure = failIf(!allowed, MsgOriginNotAllowed)
	case !ent.Has(account.FeatureServerSide):
		failure = MsgServerSideNoPlan
	case !ipListed(st.AllowedSenderIPs, remoteIP):
		failure = MsgServerSideIP
	}
	return host, browser, failure
}

// Judge runs every gate after the access key against the form the key found,
// in the spec's order. ent must hold whichever of FeaturesJudged the account
// has; a feature not in it counts as not granted.
func Judge(r Request, t Target, ent account.Entitlements) Verdict {
	v := Verdict{dryRun: r.DryRun, gates: []GateResult{{Gate: GateAccessKey, Outcome: OutcomePassed}}}
	st, env := t.Settings, r.Envelope

	if r.DryRun {
		v.skip(GateRecipientVerified, "dry runs are accepted before the recipient is verified")
	} else if !v.check(GateRecipientVerified, failIf(!t.RecipientVerified, MsgRecipientUnverified)) {
		return v
	}

	host, browser, failure := judgeSource(r.Origin, r.Referer, r.RemoteIP, st, ent)
	if browser {
		if !v.check(GateOrigin, failure) {
			return v
		}
		v.skip(GateServerSide, "the request carries an Origin or Referer")
	} else {
		v.skip(GateOrigin, "no Origin or Referer: checked as a server-side submission")
		if !v.check(GateServerSide, failure) {
			return v
		}
	}

	if !v.captchaGate(r, st.Captcha) {
		return v
	}

	if !v.check(GateHoneypot, failIf(env.Spam, MsgSpam)) {
		return v
	}

	if !v.spamGate(r, st) {
		return v
	}

	if redirects(r) {
		failure := ""
		if !form.IsHTTPSURL(env.Redirect) {
			failure = MsgRedirectInvalid
		} else if crossSite(r, st, host) {
			failure = failIf(!ent.Has(account.FeatureCrossRedirect), MsgRedirectCrossDomain)
		}
		if !v.check(GateRedirect, failure) {
			return v
		}
	} else {
		v.skip(GateRedirect, "no redirect applies to this request")
	}

	if !v.check(GatePaidFeatures, paidFeatures(env, ent)) {
		return v
	}

	if len(r.Files) == 0 {
		v.skip(GateUploads, "no file fields")
	} else {
		failure := UploadsRefusal(st, ent)
		if failure == "" {
			failure = JudgeFiles(r.Files, st.UploadLimits)
		}
		if !v.check(GateUploads, failure) {
			return v
		}
	}

	if len(st.Validation.Fields) > 0 {
		values := make(map[string]string, len(r.Fields))
		for _, f := range r.Fields {
			values[f.Name] = f.Value
		}
		v.errors = CheckFields(st.Validation, values)
		// File rules run only when the form takes uploads (the spec's
		// FieldValidationRule file).
		if st.UploadsEnabled {
			v.errors = append(v.errors, CheckFiles(st.Validation, FileTypes(r.Files))...)
		}
	}
	if !v.check(GateFields, failIf(len(v.errors) > 0, MsgValidationFailed)) {
		return v
	}
	if u := t.Usage; u != nil {
		v.check(GateQuota, failIf(u.Exhausted(), u.ExhaustedMessage()))
		if v.failed != nil && v.failed.Gate == GateQuota {
			v.until = u.ResetsAt()
		}
	}
	return v
}

// FeaturesJudged are the entitlements Judge may consult for this request, so
// the caller looks up only those: a browser post without paid routing fields
// needs none.
func FeaturesJudged(r Request, st form.Settings) []string {
	var out []string
	host, browser := requestHost(r.Origin, r.Referer)
	if !browser {
		out = append(out, account.FeatureServerSide)
	}
	if redirects(r) && form.IsHTTPSURL(r.Envelope.Redirect) && crossSite(r, st, host) {
		out = append(out, account.FeatureCrossRedirect)
	}
	if r.Envelope.CC != "" {
		out = append(out, account.FeatureCC)
	}
	if r.Envelope.Webhook != "" {
		out = append(out, account.FeatureWebhook)
	}
	if len(r.Files) > 0 {
		out = append(out, account.FeatureUploads)
	}
	return out
}

// redirects reports whether the redirect gate applies: a plain HTML post that
// names a redirect.
func redirects(r Request) bool { return !r.JSONClient && r.Envelope.Redirect != "" }

// crossSite reports whether a (valid) redirect leaves the posting site: it is
// neither the Origin/Referer host nor one of the form's allowed domains.
func crossSite(r Request, st form.Settings, origin string) bool {
	u, _ := url.Parse(r.Envelope.Redirect)
	target := strings.ToLower(u.Hostname())
	return !((origin != "" && target == origin) || form.HostAllowed(st.AllowedDomains, target))
}

// paidFeatures checks the paid/manual routing fields and the reply-to override.
func paidFeatures(env Envelope, ent account.Entitlements) string {
	if env.ReplyTo != "" && !domain.IsEmailAddress(env.ReplyTo) {
		return MsgReplyToInvalid
	}
	if env.CC != "" {
		if !ent.Has(account.FeatureCC) {
			return MsgCCNotEntitled
		}
		cc := SplitCC(env.CC)
		if len(cc) > MaxCCRecipients {
			return MsgCCInvalid
		}
		for _, a := range cc {
			if !domain.IsEmailAddress(a) {
				return MsgCCInvalid
			}
		}
	}
	if env.Webhook != "" {
		if !ent.Has(account.FeatureWebhook) {
			return MsgWebhookNotEntitled
		}
		if !form.IsHTTPSURL(env.Webhook) {
			return MsgWebhookInvalid
		}
	}
	return ""
}

func failIf(cond bool, msg string) string {
	if cond {
		return msg
	}
	return ""
}

// requestHost is the host of the Origin header, else of the Referer.
func requestHost(origin, referer string) (host string, present bool) {
	for _, raw := range []string{origin, referer} {
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return "", true // present but unusable (e.g. Origin: null)
		}
		return strings.ToLower(u.Hostname()), true
	}
	return "", false
}

func ipListed(list []string, ip string) bool {
	remote := net.ParseIP(ip)
	if remote == nil {
		return false
	}
	for _, s := range list {
		if allowed := net.ParseIP(s); allowed != nil && allowed.Equal(remote) {
			return true
		}
	}
	return false
}
