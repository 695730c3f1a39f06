package submission

import (
	"strings"

	"github.com/formd/formd/domain/form"
)

// The captcha gate is judged in two steps, because verifying a token is I/O
// (a provider's siteverify API, or formd's table of spent proof-of-work
// solutions) and Judge does none: Judge stops at the gate with a
// CaptchaCheck to make, the application makes it, and Judge runs again with
// the outcome in Request.Captcha. A submission that an earlier gate already
// refused never costs a verification (dry runs, which judge every gate,
// excepted).

// CaptchaStatus is what verifying a captcha token found.
type CaptchaStatus string

// Captcha statuses. Each failed one has its own message.
const (
	CaptchaVerified CaptchaStatus = "verified"
	// CaptchaInvalid: the provider refused the token, or a proof-of-work
	// solution is forged or wrong.
	CaptchaInvalid CaptchaStatus = "invalid"
	// CaptchaExpired: the token timed out or was already used (providers
	// do not tell the two apart), or the challenge expired.
	CaptchaExpired CaptchaStatus = "expired"
	// CaptchaReplayed: a proof-of-work solution that was accepted before.
	CaptchaReplayed CaptchaStatus = "replayed"
	// CaptchaMisconfigured: the provider refused the form's secret or site key.
	CaptchaMisconfigured CaptchaStatus = "misconfigured"
	// CaptchaUnavailable: no verdict could be had (the provider is down,
	// slow, or answered nonsense). The gate fails closed.
	CaptchaUnavailable CaptchaStatus = "unavailable"
)

// CaptchaOutcome is the outcome of verifying one captcha token.
type CaptchaOutcome struct {
	Status CaptchaStatus
	// Score is recaptcha_v3's rating, 1.0 very likely a human; nil when the
	// provider gave none.
	Score *float64
}

// CaptchaCheck is the verification Judge waits for: the form's provider
// and the token the submission carried in that provider's field.
type CaptchaCheck struct {
	Provider form.CaptchaProvider
	Token    string
}

// MsgCaptchaMissing is the captcha gate's message when the provider's
// field is missing or blank.
func MsgCaptchaMissing(p form.CaptchaProvider) string {
	if p == form.CaptchaFormd {
		return MsgProofMissing
	}
	return "This form is protected by a captcha (" + string(p) + "): solve it and send its token in the " + p.TokenField() + " field."
}

// CaptchaCheck is the verification judgement waits for, if it does: then
// the verdict is unfinished, and its Err refuses (fail closed) until the
// outcome is given in Request.Captcha and the request is judged again.
func (v Verdict) CaptchaCheck() (CaptchaCheck, bool) {
	if v.pending == nil {
		return CaptchaCheck{}, false
	}
	return *v.pending, true
}

// captchaGate judges the form's captcha and reports whether judgement goes on.
func (v *Verdict) captchaGate(r Request, c form.Captcha) bool {
	if !c.Enabled() {
		v.skip(GateCaptcha, "the form has no captcha")
		return true
	}
	token := fieldValue(r.Fields, c.Provider.TokenField())
	if token == "" {
		return v.check(GateCaptcha, MsgCaptchaMissing(c.Provider))
	}
	if r.Captcha == nil {
		v.pending = &CaptchaCheck{Provider: c.Provider, Token: token}
		return false
	}
	return v.check(GateCaptcha, captchaFailure(c, *r.Captcha))
}

// captchaFailure is the gate's message for a verification outcome; empty
// when it passes. A recaptcha_v3 token passes only with a score of at least
// the form's minScore.
func captchaFailure(c form.Captcha, o CaptchaOutcome) string {
	proof := c.Provider == form.CaptchaFormd
	switch o.Status {
	case CaptchaVerified:
		if c.Provider == form.CaptchaRecaptchaV3 && (o.Score == nil || *o.Score < c.MinScore) {
			return MsgCaptchaLowScore
		}
		return ""
	case CaptchaExpired:
		if proof {
			return MsgProofExpired
		}
		return MsgCaptchaExpired
	case CaptchaReplayed:
		if proof {
			return MsgProofReplayed
		}
		return MsgCaptchaExpired
	case CaptchaMisconfigured:
		return MsgCaptchaMisconfig
	case CaptchaUnavailable:
		return MsgCaptchaUnavailable
	}
	if proof {
		return MsgProofInvalid
	}
	return MsgCaptchaInvalid
}

// fieldValue is the trimmed value of the named field (names compared as
// the reserved ones are, regardless of case); empty when absent.
func fieldValue(fields []Field, name string) string {
	for _, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return strings.TrimSpace(f.Value)
		}
	}
	return ""
}
