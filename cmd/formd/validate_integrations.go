package main

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"

	"github.com/formd/formd/adapters/outbound"
)

func (c *Config) checkCAFile() error {
	const name = "FORMD_WEBHOOK_CA_FILE"
	if c.WebhookCAFile == "" {
		return nil
	}
	pem, err := os.ReadFile(c.WebhookCAFile)
	if err != nil {
		return fmt.Errorf("%s: cannot read %s: %v", name, c.WebhookCAFile, cause(err))
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return fmt.Errorf("%s: %s holds no PEM certificate", name, c.WebhookCAFile)
	}
	return nil
}

// checkIntegrationServices checks the Telegram and Google settings: the
// service addresses are absolute URLs (plain http is the operator's choice,
// for a local gateway or a test), the bot token looks like one, and the
// service account file is one, read now rather than at the first row.
func (c *Config) checkIntegrationServices() error {
	for name, raw := range map[string]string{
		"FORMD_TELEGRAM_API_URL": c.TelegramAPIURL, "FORMD_GOOGLE_TOKEN_URL": c.GoogleTokenURL, "FORMD_GOOGLE_SHEETS_URL": c.GoogleSheetsURL,
	} {
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("%s must be an absolute http:// or https:// URL without a query, such as https://api.example.com", name)
		}
	}
	// A bot token is "<bot id>:<secret>"; never echoed back, even in part.
	if t := c.TelegramBotToken; t != "" && !telegramBotToken.MatchString(t) {
		return errors.New("FORMD_TELEGRAM_BOT_TOKEN does not look like a bot token (digits, a colon, then letters, digits, - and _) as @BotFather gives it")
	}
	if c.GoogleCredentialsFile != "" {
		if _, err := outbound.ReadServiceAccount(c.GoogleCredentialsFile); err != nil {
			return fmt.Errorf("FORMD_GOOGLE_CREDENTIALS_FILE: %s: %v", c.GoogleCredentialsFile, cause(err))
		}
	}
	return nil
}

var telegramBotToken = regexp.MustCompile(`^[0-9]{1,20}:[A-Za-z0-9_-]{20,100}$`)

// checkCaptchaURLs checks the captcha providers' verification addresses:
// each an absolute URL without a query, http allowed (operator
// configuration, such as a local double or gateway). They hold no secret,
// so an error may show them.
func (c *Config) checkCaptchaURLs() error {
	for _, v := range []struct{ name, raw string }{
		{"FORMD_RECAPTCHA_VERIFY_URL", c.RecaptchaVerifyURL}, {"FORMD_HCAPTCHA_VERIFY_URL", c.HCaptchaVerifyURL},
		{"FORMD_TURNSTILE_VERIFY_URL", c.TurnstileVerifyURL},
	} {
		u, err := url.Parse(v.raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
			return fmt.Errorf("%s must be an absolute http:// or https:// URL without a query, such as https://api.hcaptcha.com/siteverify", v.name)
		}
	}
	return nil
}
