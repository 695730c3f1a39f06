package main

import (
	"fmt"
	"strings"
)

// Every FORMD_* value is checked before formd connects to anything or
// listens: an operator gets one line naming the variable and what is wrong,
// rather than a half-working server that fails on the first mail or link.
// Messages show a value only when it cannot be a secret (never a key, never a
// URL's password).

// validate checks every value that needs no file system or network. It
// normalises what it accepts (trusted proxies without spaces).
func (c *Config) validate() error {
	checks := []func() error{
		func() error { return checkAddr("FORMD_LISTEN_ADDR", c.ListenAddr, true) },
		func() error { return checkAddr("FORMD_DEBUG_ADDR", c.DebugAddr, false) },
		func() error { return checkAddr("FORMD_METRICS_ADDR", c.MetricsAddr, false) },
		c.checkDatabaseURL,
		c.checkBaseURL,
		c.checkDownloadBaseURL,
		c.checkSMTPURL,
		c.checkMailFrom,
		c.checkNumbers,
		c.checkTrustedProxies,
		c.checkLogLevel,
		c.checkKeys,
		c.checkCAFile,
		c.checkRetention,
		c.checkIntegrationServices,
		c.checkCaptchaURLs,
		c.checkClamdAddr,
		c.checkRspamd,
		c.checkAkismet,
		c.checkUploads,
		c.checkShutdownTimeout,
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkShutdownTimeout: a drain needs some time; without any, every
// request in flight would be cut off.
func (c *Config) checkShutdownTimeout() error {
	if c.ShutdownTimeout <= 0 {
		return fmt.Errorf("FORMD_SHUTDOWN_TIMEOUT must be a duration above 0, such as 20s, not %s", c.ShutdownTimeout)
	}
	return nil
}

func (c *Config) checkLogLevel() error {
	switch strings.ToLower(c.LogLevel) {
	case "debug", "info", "warn", "error":
		return nil
	}
	return fmt.Errorf("FORMD_LOG_LEVEL must be debug, info, warn or error, not %q", c.LogLevel)
}
