package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/formd/formd/adapters/akismet"
	"github.com/formd/formd/adapters/rspamd"
)

// checkRspamd checks the spam classifier's settings: the addresses' form
// only (rspamd may start after formd, and a check that cannot reach it
// fails open anyway), the timeout's bounds, and that the controller's
// settings come with a scanner. An address is shown unless it holds an @
// (a URL with a password); the password never is.
func (c *Config) checkRspamd() error {
	if c.RspamdURL == "" {
		if c.RspamdControllerURL != "" || c.RspamdPassword != "" {
			return errors.New("FORMD_RSPAMD_CONTROLLER_URL or FORMD_RSPAMD_PASSWORD is set but FORMD_RSPAMD_URL is not: set it to classify submissions with rspamd, or unset them")
		}
	}
	for _, v := range []struct{ name, raw string }{{"FORMD_RSPAMD_URL", c.RspamdURL}, {"FORMD_RSPAMD_CONTROLLER_URL", c.RspamdControllerURL}} {
		if v.raw == "" {
			continue
		}
		if err := rspamd.CheckURL(v.raw); err != nil {
			if strings.Contains(v.raw, "@") {
				return fmt.Errorf("%s: %v", v.name, err)
			}
			return fmt.Errorf("%s: %v, not %q", v.name, err, v.raw)
		}
	}
	if c.RspamdPassword != "" && c.RspamdControllerURL == "" {
		return errors.New("FORMD_RSPAMD_PASSWORD is set but FORMD_RSPAMD_CONTROLLER_URL is not: the password is the controller's, which learns from the owner's judgement")
	}
	if err := rspamd.CheckTimeout(c.RspamdTimeout); err != nil {
		return fmt.Errorf("FORMD_RSPAMD_TIMEOUT: %v, not %s", err, c.RspamdTimeout)
	}
	return nil
}

// rspamdConfig is how formd reaches rspamd.
func (c *Config) rspamdConfig() rspamd.Config {
	return rspamd.Config{URL: c.RspamdURL, ControllerURL: c.RspamdControllerURL, Password: c.RspamdPassword, Timeout: c.RspamdTimeout}
}

// checkAkismet checks the Akismet settings: the key and the site come
// together, the addresses are http(s), and rspamd is not configured too
// (formd asks one classifier). The key is never shown; the site and the
// API's address are unless they hold an @.
func (c *Config) checkAkismet() error {
	if c.AkismetKey == "" {
		if c.AkismetSite != "" {
			return errors.New("FORMD_AKISMET_SITE is set but FORMD_AKISMET_KEY is not: set the key to classify submissions with Akismet, or unset the site")
		}
		return nil
	}
	if c.RspamdURL != "" {
		return errors.New("FORMD_AKISMET_KEY and FORMD_RSPAMD_URL are both set: formd asks one spam classifier, so unset one of them")
	}
	if err := akismet.CheckKey(c.AkismetKey); err != nil {
		return fmt.Errorf("FORMD_AKISMET_KEY: %v", err)
	}
	if c.AkismetSite == "" {
		return errors.New("FORMD_AKISMET_KEY is set but FORMD_AKISMET_SITE is not: set it to the site the key is registered for, such as https://example.com")
	}
	for _, v := range []struct{ name, raw string }{{"FORMD_AKISMET_SITE", c.AkismetSite}, {"FORMD_AKISMET_URL", c.AkismetURL}} {
		if err := akismet.CheckURL(v.raw); err != nil {
			if strings.Contains(v.raw, "@") {
				return fmt.Errorf("%s: %v", v.name, err)
			}
			return fmt.Errorf("%s: %v, not %q", v.name, err, v.raw)
		}
	}
	return nil
}

// akismetConfig is how formd reaches Akismet.
func (c *Config) akismetConfig() akismet.Config {
	return akismet.Config{Key: c.AkismetKey, Site: c.AkismetSite, URL: c.AkismetURL}
}
