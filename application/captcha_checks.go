package application

import (
	"context"
	"errors"
	"log/slog"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/altcha"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// CaptchaChecks makes the verification the captcha gate waits for
// (submission.Verdict.CaptchaCheck): a third-party token through its
// provider's API with the form's unsealed secret, or a solution of formd's
// proof-of-work challenge against its signature, its expiry and the record
// of spent solutions. It is part of the Submit use case.
type CaptchaChecks struct {
	verifier CaptchaVerifier
	secrets  CaptchaSecrets
	sealer   Sealer
	signer   ChallengeSigner
	spent    SpentChallenges
	clock    Clock
	log      *slog.Logger
}

// NewCaptchaChecks builds the checks; every dependency is required.
func NewCaptchaChecks(verifier CaptchaVerifier, secrets CaptchaSecrets, sealer Sealer, signer ChallengeSigner, spent SpentChallenges,
	clock Clock, log *slog.Logger) *CaptchaChecks {
	if verifier == nil || secrets == nil || sealer == nil || signer == nil || spent == nil || clock == nil || log == nil {
		panic("application: nil dependency of CaptchaChecks")
	}
	return &CaptchaChecks{verifier: verifier, secrets: secrets, sealer: sealer, signer: signer, spent: spent, clock: clock, log: log}
}

// errStaleCaptcha means the form's settings name another captcha secret than
// the stored one: they were read from a cache before the captcha changed.
var errStaleCaptcha = errors.New("the form's captcha changed since its settings were read")

var unavailable = submission.CaptchaOutcome{Status: submission.CaptchaUnavailable}

// verify makes one check. Only a database failure is an error (and
// errStaleCaptcha); whatever goes wrong with a provider or a secret is an
// outcome that refuses the submission.
func (c *CaptchaChecks) verify(ctx context.Context, formID string, captcha form.Captcha, check submission.CaptchaCheck, remoteIP string) (submission.CaptchaOutcome, error) {
	if check.Provider == form.CaptchaFormd {
		return c.verifyProofOfWork(ctx, check.Token)
	}
	stored, err := c.secrets.CaptchaSecret(ctx, formID)
	if errors.Is(err, domain.ErrNotFound) || (err == nil && stored.ID != captcha.SecretID) {
		return submission.CaptchaOutcome{}, errStaleCaptcha
	}
	if err != nil {
		return submission.CaptchaOutcome{}, err
	}
	secret, err := c.sealer.Open(captchaSecretAAD(stored.ID), stored.Sealed)
	if err != nil {
		c.log.Error("a form's captcha secret cannot be opened with the configured keys: its submissions are refused until the secret is set again or formd runs with the key that sealed it",
			"formId", formID, "keyId", stored.Sealed.KeyID, "err", err)
		return unavailable, nil
	}
	outcome, err := c.verifier.Verify(ctx, CaptchaToken{Provider: check.Provider, Secret: string(secret), SiteKey: captcha.SiteKey,
		Token: check.Token, RemoteIP: remoteIP})
	if err != nil {
		// Fail closed: a captcha nobody could check is not passed.
		c.log.Warn("captcha provider gave no verdict; the submission is refused", "provider", string(check.Provider), "formId", formID, "err", err)
		return unavailable, nil
	}
	return outcome, nil
}

// verifyProofOfWork checks a solution of formd's challenge: its signature
// first (a challenge formd issued), then the hash and expiry, and last
// spends it, so only genuine solutions ever reach the database.
func (c *CaptchaChecks) verifyProofOfWork(ctx context.Context, field string) (submission.CaptchaOutcome, error) {
	sol, err := altcha.ParseSolution(field)
	if err != nil || !c.signer.Verify(sol.Challenge, sol.Signature) {
		return submission.CaptchaOutcome{Status: submission.CaptchaInvalid}, nil
	}
	switch err := sol.Check(c.clock.Now()); {
	case errors.Is(err, altcha.ErrExpired):
		return submission.CaptchaOutcome{Status: submission.CaptchaExpired}, nil
	case err != nil:
		return submission.CaptchaOutcome{Status: submission.CaptchaInvalid}, nil
	}
	expires, _ := sol.ExpiresAt()
	fresh, err := c.spent.Spend(ctx, sol.Challenge, expires)
	if err != nil {
		return submission.CaptchaOutcome{}, err
	}
	if !fresh {
		return submission.CaptchaOutcome{Status: submission.CaptchaReplayed}, nil
	}
	return submission.CaptchaOutcome{Status: submission.CaptchaVerified}, nil
}

// captchaMemo keeps one request's verification: a token is verified once,
// even when the request is judged again (on fresh data, or after a lost
// commit race), because providers accept a token once and formd's own
// solutions are spent by their first check.
type captchaMemo struct {
	done   bool
	key    string
	result submission.CaptchaOutcome
}

// outcome verifies the check unless this request already did with the same
// captcha settings.
func (m *captchaMemo) outcome(ctx context.Context, c *CaptchaChecks, rec FormRecord, check submission.CaptchaCheck, remoteIP string,
	fresh bool) (submission.CaptchaOutcome, error) {
	captcha := rec.Settings.Captcha
	key := string(captcha.Provider) + "\x00" + captcha.SecretID + "\x00" + captcha.SiteKey + "\x00" + check.Token
	if m.done && m.key == key {
		return m.result, nil
	}
	o, err := c.verify(ctx, rec.ID, captcha, check, remoteIP)
	if errors.Is(err, errStaleCaptcha) && fresh {
		// Fresh settings and the stored secret still disagree: a change is
		// being committed right now. Refuse rather than guess.
		o, err = unavailable, nil
	}
	if err != nil {
		return o, err
	}
	m.done, m.key, m.result = true, key, o
	return o, nil
}
