package application

import (
	"context"
	"net"
	"net/url"
	"strings"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// Gate names, in the order they are checked (README: Gate order).
const (
	GateAccessKey         = "access_key"
	GateRecipientVerified = "recipient_verified"
	GateOrigin            = "origin"
	GateServerSide        = "server_side"
	GateHoneypot          = "honeypot"
	GateRedirect          = "redirect"
	GatePaidFeatures      = "paid_features"
	GateUploads           = "uploads"
	GateFields            = "fields"
)

// Gate outcomes.
const (
	OutcomePassed  = "passed"
	OutcomeFailed  = "failed"
	OutcomeSkipped = "skipped"
)

// GateResult is one gate's verdict, reported by dry runs.
type GateResult struct {
	Gate    string `json:"gate"`
	Outcome string `json:"outcome"`
	Message string `json:"message,omitempty"`
}

// Messages of failed gates.
const (
	MsgAccessKeyMissing    = "access_key is missing: send the form's access key in the access_key field (or in the /submit/{accessKey} path)."
	MsgAccessKeyUnknown    = "No form matches this access_key. Check the key in your form snippet."
	MsgRecipientUnverified = "The recipient email of this form is not verified. It must be verified before submissions are accepted: follow the link in the verification email."
	MsgOriginNotAllowed    = "This website is not allowed to submit to this form: the Origin or Referer host is not in the form's allowedDomains."
	MsgServerSideNoPlan    = "Submissions without an Origin or Referer header are server-side submissions, which need a paid or manually granted entitlement."
	MsgServerSideIP        = "Server-side submissions are accepted only from the exact IP addresses on the form's allowedSenderIps safelist."
	MsgSpam                = "Submission rejected as spam: the botcheck field must be left empty."
	MsgRedirectInvalid     = "redirect must be an absolute https URL."
	MsgRedirectCrossDomain = "Redirecting to another domain needs a paid or manually granted entitlement."
	MsgCCNotEntitled       = "ccemail needs a paid or manually granted entitlement."
	MsgCCInvalid           = "ccemail must list valid email addresses separated by commas or semicolons."
	MsgWebhookNotEntitled  = "A per-submit webhook needs a paid or manually granted entitlement."
	MsgWebhookInvalid      = "webhook must be an absolute https URL."
	MsgReplyToInvalid      = "replyto must be a valid email address."
	MsgUploadsDisabled     = "File uploads are not enabled for this form; send the form without file fields."
	MsgUploadsNotAvailable = "File uploads are not supported by this server yet; send the form without file fields."
	MsgValidationFailed    = "Submission validation failed."
	maxCCRecipients        = 10
)

// gateRun evaluates gates in order. A live run stops at the first failure; a
// dry run evaluates every gate so an integrator sees each verdict.
type gateRun struct {
	dryRun  bool
	results []GateResult
	failed  *GateResult
	errors  []submission.FieldError
}

// check records a gate's verdict; it reports whether evaluation goes on.
func (g *gateRun) check(gate, failure string) bool {
	if g.failed != nil && !g.dryRun {
		return false
	}
	r := GateResult{Gate: gate, Outcome: OutcomePassed}
	if failure != "" {
		r.Outcome, r.Message = OutcomeFailed, failure
	}
	g.results = append(g.results, r)
	if failure != "" && g.failed == nil {
		g.failed = &r
	}
	return g.dryRun || g.failed == nil
}

func (g *gateRun) skip(gate, why string) {
	g.results = append(g.results, GateResult{Gate: gate, Outcome: OutcomeSkipped, Message: why})
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

// evaluate runs every gate after the access key against one form.
func (h *SubmitHandler) evaluate(ctx context.Context, cmd Submit, rec FormRecord, env submission.Envelope, data []submission.Field) (*gateRun, error) {
	g := &gateRun{dryRun: cmd.DryRun, results: []GateResult{{Gate: GateAccessKey, Outcome: OutcomePassed}}}
	st := rec.Settings
	has := func(feature string) (bool, error) { return h.ent.Has(ctx, rec.AccountID, feature) }

	if cmd.DryRun {
		g.skip(GateRecipientVerified, "dry runs are accepted before the recipient is verified")
	} else if !g.check(GateRecipientVerified, failIf(!rec.RecipientVerified, MsgRecipientUnverified)) {
		return g, nil
	}

	host, browser := requestHost(cmd.Origin, cmd.Referer)
	if browser {
		allowed := len(st.AllowedDomains) == 0 || (host != "" && form.HostAllowed(st.AllowedDomains, host))
		if !g.check(GateOrigin, failIf(!allowed, MsgOriginNotAllowed)) {
			return g, nil
		}
		g.skip(GateServerSide, "the request carries an Origin or Referer")
	} else {
		g.skip(GateOrigin, "no Origin or Referer: checked as a server-side submission")
		entitled, err := has(FeatureServerSide)
		if err != nil {
			return nil, err
		}
		failure := ""
		switch {
		case !entitled:
			failure = MsgServerSideNoPlan
		case !ipListed(st.AllowedSenderIPs, cmd.RemoteIP):
			failure = MsgServerSideIP
		}
		if !g.check(GateServerSide, failure) {
			return g, nil
		}
	}

	if !g.check(GateHoneypot, failIf(env.Spam, MsgSpam)) {
		return g, nil
	}

	if cmd.JSONClient || env.Redirect == "" {
		g.skip(GateRedirect, "no redirect applies to this request")
	} else {
		failure := ""
		if !form.IsHTTPSURL(env.Redirect) {
			failure = MsgRedirectInvalid
		} else if u, _ := url.Parse(env.Redirect); !sameSite(u.Hostname(), host, st.AllowedDomains) {
			entitled, err := has(FeatureCrossRedirect)
			if err != nil {
				return nil, err
			}
			failure = failIf(!entitled, MsgRedirectCrossDomain)
		}
		if !g.check(GateRedirect, failure) {
			return g, nil
		}
	}

	failure, err := h.paidFeatures(env, has)
	if err != nil {
		return nil, err
	}
	if !g.check(GatePaidFeatures, failure) {
		return g, nil
	}

	if len(cmd.Files) == 0 {
		g.skip(GateUploads, "no file fields")
	} else {
		failure := MsgUploadsNotAvailable
		if !st.UploadsEnabled {
			failure = MsgUploadsDisabled
		}
		if !g.check(GateUploads, failure) {
			return g, nil
		}
	}

	// Rules see every submitted field, routing fields included, so a rule on
	// `subject` or `replyto` judges the value that was sent.
	if len(st.Validation.Fields) > 0 {
		values := make(map[string]string, len(cmd.Fields))
		for _, f := range cmd.Fields {
			values[f.Name] = f.Value
		}
		g.errors = submission.CheckFields(st.Validation, values)
	}
	g.check(GateFields, failIf(len(g.errors) > 0, MsgValidationFailed))
	return g, nil
}

// paidFeatures checks the paid/manual routing fields and the reply-to override.
func (h *SubmitHandler) paidFeatures(env submission.Envelope, has func(string) (bool, error)) (string, error) {
	if env.ReplyTo != "" && !domain.IsEmailAddress(env.ReplyTo) {
		return MsgReplyToInvalid, nil
	}
	if env.CC != "" {
		ok, err := has(FeatureCC)
		if err != nil || !ok {
			return MsgCCNotEntitled, err
		}
		cc := submission.SplitCC(env.CC)
		if len(cc) > maxCCRecipients {
			return MsgCCInvalid, nil
		}
		for _, a := range cc {
			if !domain.IsEmailAddress(a) {
				return MsgCCInvalid, nil
			}
		}
	}
	if env.Webhook != "" {
		ok, err := has(FeatureWebhook)
		if err != nil || !ok {
			return MsgWebhookNotEntitled, err
		}
		if !form.IsHTTPSURL(env.Webhook) {
			return MsgWebhookInvalid, nil
		}
	}
	return "", nil
}

func failIf(cond bool, msg string) string {
	if cond {
		return msg
	}
	return ""
}

// sameSite reports whether a redirect host belongs to the posting site: the
// Origin/Referer host itself or one of the form's allowed domains.
func sameSite(target, origin string, allowed []string) bool {
	target = strings.ToLower(target)
	return (origin != "" && target == origin) || form.HostAllowed(allowed, target)
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
