package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/form"
)

// captchaSecretAAD binds a sealed captcha secret to its id, so a sealed blob
// moved to another form's row does not open.
func captchaSecretAAD(secretID string) string { return "captcha-secret:" + secretID }

// withCaptchaSecretID gives a patch that carries a captcha secret the id the
// secret will be stored under; the domain records only that id.
func withCaptchaSecretID(p form.Patch, ids IDs) form.Patch {
	if p.Captcha != nil && p.Captcha.Secret != nil {
		c := *p.Captcha
		c.SecretID = ids.New()
		p.Captcha = &c
	}
	return p
}

// storeCaptchaSecret keeps the form's captcha secret in step with its
// settings, in the caller's transaction: the secret a patch gave is sealed
// and stored once the form accepted it, and a secret the settings no longer
// name (the captcha is off, or is formd's own) is deleted.
func storeCaptchaSecret(ctx context.Context, tx CaptchaSecretStore, sealer Sealer, p form.Patch, before, after form.Captcha, formID string, now time.Time) error {
	switch {
	case p.Captcha != nil && p.Captcha.Secret != nil && after.SecretID == p.Captcha.SecretID:
		sealed, err := sealer.Seal(captchaSecretAAD(after.SecretID), []byte(*p.Captcha.Secret))
		if err != nil {
			return err
		}
		return tx.StoreCaptchaSecret(ctx, StoredCaptchaSecret{ID: after.SecretID, FormID: formID, Sealed: sealed, CreatedAt: now})
	case before.SecretID != "" && after.SecretID == "":
		return tx.DeleteCaptchaSecret(ctx, formID)
	}
	return nil
}
