package main

import (
	"github.com/formd/formd/adapters/captcha"
	"github.com/formd/formd/adapters/ratelimit"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
)

// provideQuotas is the plans' monthly submission quotas (FORMD_QUOTA_*).
func provideQuotas(cfg Config) account.Quotas {
	return account.Quotas{Free: cfg.QuotaFree, Pro: cfg.QuotaPro, Lifetime: cfg.QuotaLifetime}
}

// provideFormFloods is the per-form flood limit (FORMD_FORM_SUBMIT_RATE and
// _BURST); a rate of 0 allows everything.
func provideFormFloods(cfg Config) application.FormFloodLimits {
	return ratelimit.NewKeyed(cfg.FormSubmitRate, cfg.FormSubmitBurst)
}

// provideCaptchaVerifier points the captcha adapter at the configured
// verification addresses.
func provideCaptchaVerifier(cfg Config) *captcha.Verifier {
	return captcha.NewVerifier(captcha.Options{RecaptchaURL: cfg.RecaptchaVerifyURL, HCaptchaURL: cfg.HCaptchaVerifyURL,
		TurnstileURL: cfg.TurnstileVerifyURL})
}
