package form

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"

	"github.com/formd/formd/domain"
)

// CaptchaProvider names who checks a form's captcha.
type CaptchaProvider string

// The captcha providers a form can use. The third-party ones are verified
// against the provider's siteverify API with the form's secret; formd's own
// is a proof-of-work challenge (ALTCHA) that needs no third party.
const (
	CaptchaNone        CaptchaProvider = ""
	CaptchaRecaptchaV2 CaptchaProvider = "recaptcha_v2"
	CaptchaRecaptchaV3 CaptchaProvider = "recaptcha_v3"
	CaptchaHCaptcha    CaptchaProvider = "hcaptcha"
	CaptchaTurnstile   CaptchaProvider = "turnstile"
	CaptchaFormd       CaptchaProvider = "formd"
)

// CaptchaNoneName is how the API and the audit trail name CaptchaNone.
const CaptchaNoneName = "none"

// DefaultMinScore is the lowest recaptcha_v3 score a form accepts unless it
// says otherwise: Google's own suggested threshold.
const DefaultMinScore = 0.5

// AltchaField is the submission field that carries a solution of formd's
// proof-of-work challenge (the ALTCHA widget's own field name).
const AltchaField = "altcha"

// captchaProviders are the providers a PATCH may name, in display order.
var captchaProviders = []CaptchaProvider{CaptchaRecaptchaV2, CaptchaRecaptchaV3, CaptchaHCaptcha, CaptchaTurnstile, CaptchaFormd}

// captchaCredential is a site key or secret as providers issue them:
// printable ASCII without spaces.
var captchaCredential = regexp.MustCompile(`^[\x21-\x7e]{1,200}$`)

// Name is the provider's name as the API shows it ("none" when off).
func (p CaptchaProvider) Name() string {
	if p == CaptchaNone {
		return CaptchaNoneName
	}
	return string(p)
}

// TokenField is the submission field that carries the provider's token:
// the spec's names for the third-party providers, ALTCHA's for formd's.
func (p CaptchaProvider) TokenField() string {
	switch p {
	case CaptchaRecaptchaV2:
		return "g-captcha-response"
	case CaptchaRecaptchaV3:
		return "captcha_response"
	case CaptchaHCaptcha:
		return "h-captcha-response"
	case CaptchaTurnstile:
		return "cf-captcha-response"
	case CaptchaFormd:
		return AltchaField
	}
	return ""
}

// ThirdParty reports whether tokens are verified by the provider's API,
// which needs the form's site key and secret.
func (p CaptchaProvider) ThirdParty() bool {
	return p != CaptchaNone && p != CaptchaFormd
}

// Captcha is a form's captcha setting. The provider's secret is never part
// of it: it is stored sealed outside events, and SecretID names it.
type Captcha struct {
	Provider CaptchaProvider `json:"provider,omitempty"`
	SiteKey  string          `json:"siteKey,omitempty"`
	// MinScore is the lowest accepted score of recaptcha_v3 (0 to 1).
	MinScore float64 `json:"minScore,omitempty"`
	// SecretID names the sealed secret of a third-party provider.
	SecretID string `json:"secretId,omitempty"`
}

// Enabled reports whether submissions must pass a captcha.
func (c Captcha) Enabled() bool { return c.Provider != CaptchaNone }

// CaptchaPatch holds what a PATCH changes in the captcha; nil fields keep
// their value, except that a new provider starts from nothing (another
// provider's site key and secret are no use to it).
type CaptchaPatch struct {
	// Provider is a provider's name, or "none" to turn the captcha off.
	Provider *string
	SiteKey  *string
	MinScore *float64
	// Secret is the provider's secret in clear, only to check its form: the
	// caller stores it sealed under SecretID, and only the id is recorded.
	Secret   *string
	SecretID string
}

// Apply returns the captcha with the patch applied. A setting that does not
// apply to the provider is refused rather than ignored, so a client that
// sent it learns so.
func (c Captcha) Apply(p CaptchaPatch) (Captcha, error) {
	next := c
	if p.Provider != nil {
		provider, err := parseCaptchaProvider(*p.Provider)
		if err != nil {
			return c, err
		}
		if provider != c.Provider {
			next = Captcha{Provider: provider}
			if provider == CaptchaRecaptchaV3 {
				next.MinScore = DefaultMinScore
			}
		}
	}
	if !next.Provider.ThirdParty() {
		for _, given := range []struct {
			field string
			set   bool
		}{{"captcha.siteKey", p.SiteKey != nil}, {"captcha.secret", p.Secret != nil}, {"captcha.minScore", p.MinScore != nil}} {
			if given.set {
				return c, domain.Invalid(given.field, "%s does not apply when the captcha provider is %s", given.field, next.Provider.Name())
			}
		}
		return next, nil
	}
	if p.SiteKey != nil {
		next.SiteKey = strings.TrimSpace(*p.SiteKey)
		if !captchaCredential.MatchString(next.SiteKey) {
			return c, domain.Invalid("captcha.siteKey", "captcha.siteKey must be the provider's site key: 1 to 200 printable characters without spaces")
		}
	}
	if p.Secret != nil {
		if !captchaCredential.MatchString(*p.Secret) {
			return c, domain.Invalid("captcha.secret", "captcha.secret must be the provider's secret key: 1 to 200 printable characters without spaces")
		}
		if p.SecretID == "" {
			return c, domain.Invalid("captcha.secret", "captcha.secret needs an id to be stored under")
		}
		next.SecretID = p.SecretID
	}
	if p.MinScore != nil {
		if next.Provider != CaptchaRecaptchaV3 {
			return c, domain.Invalid("captcha.minScore", "captcha.minScore applies to recaptcha_v3 only")
		}
		next.MinScore = *p.MinScore
	}
	return next, next.validate()
}

// validate checks a captcha setting as a whole: a third-party provider
// needs its site key and secret, and recaptcha_v3 a score from 0 to 1.
func (c Captcha) validate() error {
	if c.Provider == CaptchaNone {
		return nil
	}
	if _, err := parseCaptchaProvider(string(c.Provider)); err != nil {
		return err
	}
	if !c.Provider.ThirdParty() {
		return nil
	}
	if c.SiteKey == "" {
		return domain.Invalid("captcha.siteKey", "captcha.siteKey is required for the %s provider", c.Provider)
	}
	if c.SecretID == "" {
		return domain.Invalid("captcha.secret", "captcha.secret is required for the %s provider (a new provider needs its own secret)", c.Provider)
	}
	if math.IsNaN(c.MinScore) || c.MinScore < 0 || c.MinScore > 1 {
		return domain.Invalid("captcha.minScore", "captcha.minScore must be from 0 to 1")
	}
	return nil
}

func parseCaptchaProvider(s string) (CaptchaProvider, error) {
	s = strings.TrimSpace(s)
	if s == CaptchaNoneName {
		return CaptchaNone, nil
	}
	for _, p := range captchaProviders {
		if string(p) == s {
			return p, nil
		}
	}
	return "", domain.Invalid("captcha.provider", "captcha.provider must be one of none, recaptcha_v2, recaptcha_v3, hcaptcha, turnstile, formd")
}

// HiddenSecret stands for a captcha secret in the audit trail, which says
// that the secret changed but never shows it.
const HiddenSecret = "(hidden)"

// diffCaptcha lists the captcha settings that differ, named "captcha.<field>"
// in the audit trail; the secret appears as HiddenSecret (or null when there
// is none). With fromNothing, every setting of an enabled captcha is new.
func diffCaptcha(before, after Captcha, fromNothing bool) []Change {
	if fromNothing && !after.Enabled() {
		return nil
	}
	view := func(c Captcha) []any {
		var minScore, secret any
		if c.Provider == CaptchaRecaptchaV3 {
			minScore = c.MinScore
		}
		if c.SecretID != "" {
			secret = HiddenSecret
		}
		return []any{c.Provider.Name(), c.SiteKey, minScore, secret}
	}
	names := []string{"provider", "siteKey", "minScore", "secret"}
	b, a := view(before), view(after)
	var out []Change
	for i, name := range names {
		from, _ := json.Marshal(b[i])
		to, _ := json.Marshal(a[i])
		if fromNothing {
			from = []byte("null")
		}
		changed := fromNothing || string(from) != string(to)
		if name == "secret" {
			changed = changed || before.SecretID != after.SecretID
		}
		if changed {
			out = append(out, Change{Field: "captcha." + name, From: from, To: to})
		}
	}
	return out
}
