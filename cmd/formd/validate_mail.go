package main

import (
	"fmt"
	netmail "net/mail"
	"net/url"
	"strconv"
	"strings"
)

func (c *Config) checkSMTPURL() error {
	const name = "FORMD_SMTP_URL"
	if c.SMTPURL == "" {
		return nil
	}
	u, err := url.Parse(c.SMTPURL)
	if err != nil || u.Scheme != "smtp" || u.Hostname() == "" {
		return fmt.Errorf("%s must look like smtp://user:password@host:port?tls=none|starttls|tls", name)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%s: the port must be a number from 1 to 65535, not %q", name, p)
		}
	}
	q := u.Query()
	for k := range q {
		if k != "tls" {
			return fmt.Errorf("%s: unknown parameter %q (only tls=none|starttls|tls)", name, k)
		}
	}
	switch q.Get("tls") {
	case "", "none", "starttls", "tls":
	default:
		return fmt.Errorf("%s: tls must be none, starttls or tls, not %q", name, q.Get("tls"))
	}
	return nil
}

func (c *Config) checkMailFrom() error {
	a, err := netmail.ParseAddress(c.MailFrom)
	if err != nil || !strings.Contains(a.Address, "@") {
		return fmt.Errorf("FORMD_MAIL_FROM must be one email address, bare (forms@example.com) or with a name (Acme Forms <forms@example.com>), not %q", c.MailFrom)
	}
	return nil
}
