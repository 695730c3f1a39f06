// Package captcha verifies captcha tokens against the providers'
// verification APIs (reCAPTCHA, hCaptcha and Turnstile all answer the same
// "siteverify" protocol): a form-encoded POST of secret, response and
// remoteip, answered by JSON with success, an optional score and error
// codes. The addresses are operator configuration, trusted like the
// Telegram and Google ones: they may be plain http on loopback (tests).
package captcha

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// The providers' own verification addresses.
const (
	DefaultRecaptchaURL = "https://www.google.com/recaptcha/api/siteverify"
	DefaultHCaptchaURL  = "https://api.hcaptcha.com/siteverify"
	DefaultTurnstileURL = "https://challenges.cloudflare.com/turnstile/v0/siteverify"
)

// Timeout bounds one verification, connection included: a submitter waits
// for it, and a provider slower than this counts as down.
const Timeout = 5 * time.Second

// maxAnswer bounds the answer read: a genuine one is a few hundred bytes.
const maxAnswer = 64 << 10

// Options are the verification addresses; a blank one is the provider's own.
type Options struct {
	RecaptchaURL string
	HCaptchaURL  string
	TurnstileURL string
}

// Verifier implements application.CaptchaVerifier.
type Verifier struct {
	client *http.Client
	urls   map[form.CaptchaProvider]string
}

// NewVerifier builds a verifier with its own client: a 5 s timeout and no
// redirects (a verification address that redirects is misconfigured, and
// following it would post the secret elsewhere).
func NewVerifier(o Options) *Verifier {
	or := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	recaptcha := or(o.RecaptchaURL, DefaultRecaptchaURL)
	return &Verifier{
		client: &http.Client{
			Timeout:       Timeout,
			Transport:     &http.Transport{Proxy: http.ProxyFromEnvironment, TLSHandshakeTimeout: Timeout, MaxIdleConnsPerHost: 8, IdleConnTimeout: 90 * time.Second},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		urls: map[form.CaptchaProvider]string{
			form.CaptchaRecaptchaV2: recaptcha, form.CaptchaRecaptchaV3: recaptcha,
			form.CaptchaHCaptcha: or(o.HCaptchaURL, DefaultHCaptchaURL), form.CaptchaTurnstile: or(o.TurnstileURL, DefaultTurnstileURL),
		},
	}
}

// answer is the siteverify JSON every provider sends.
type answer struct {
	Success    *bool    `json:"success"`
	Score      *float64 `json:"score"`
	ErrorCodes []string `json:"error-codes"`
}

// Error codes that say the form's keys are wrong, not the token.
var misconfigured = []string{"missing-input-secret", "invalid-input-secret", "invalid-sitekey", "sitekey-secret-mismatch", "invalid-keys",
	"missing-sitekey", "not-using-dummy-secret"}

// Error codes of a token that was good once: too old, or already used.
var expired = []string{"timeout-or-duplicate", "invalid-or-already-seen-response", "already-seen-response", "expired-input-response"}

// Verify implements application.CaptchaVerifier. An answer without a
// verdict — an error status, a body that is not the provider's JSON, or
// Turnstile's "internal-error" — is an error: the caller fails closed. The
// errors never hold the secret or the token.
func (v *Verifier) Verify(ctx context.Context, t application.CaptchaToken) (submission.CaptchaOutcome, error) {
	address, ok := v.urls[t.Provider]
	if !ok {
		return submission.CaptchaOutcome{}, fmt.Errorf("no verification address for captcha provider %q", t.Provider)
	}
	body := url.Values{"secret": {t.Secret}, "response": {t.Token}}
	if t.RemoteIP != "" {
		body.Set("remoteip", t.RemoteIP)
	}
	if t.Provider == form.CaptchaHCaptcha && t.SiteKey != "" {
		body.Set("sitekey", t.SiteKey) // hCaptcha then also checks that the token is the site's
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, address, strings.NewReader(body.Encode()))
	if err != nil {
		return submission.CaptchaOutcome{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		return submission.CaptchaOutcome{}, fmt.Errorf("%s verification: %w", t.Provider, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return submission.CaptchaOutcome{}, fmt.Errorf("%s verification: reading the answer: %w", t.Provider, err)
	}
	var a answer
	if resp.StatusCode >= 500 || json.Unmarshal(raw, &a) != nil || a.Success == nil {
		return submission.CaptchaOutcome{}, fmt.Errorf("%s verification: HTTP %d without a verdict", t.Provider, resp.StatusCode)
	}
	if *a.Success {
		return submission.CaptchaOutcome{Status: submission.CaptchaVerified, Score: a.Score}, nil
	}
	return classify(t.Provider, a.ErrorCodes)
}

// classify turns a refusal's error codes into an outcome.
func classify(p form.CaptchaProvider, codes []string) (submission.CaptchaOutcome, error) {
	has := func(set []string) bool {
		return slices.ContainsFunc(codes, func(c string) bool { return slices.Contains(set, c) })
	}
	switch {
	case slices.Contains(codes, "internal-error"):
		return submission.CaptchaOutcome{}, errors.New(string(p) + " verification: the provider reported an internal error")
	case has(misconfigured):
		return submission.CaptchaOutcome{Status: submission.CaptchaMisconfigured}, nil
	case has(expired):
		return submission.CaptchaOutcome{Status: submission.CaptchaExpired}, nil
	}
	return submission.CaptchaOutcome{Status: submission.CaptchaInvalid}, nil
}
