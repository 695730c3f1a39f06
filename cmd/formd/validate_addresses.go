package main

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// checkAddr accepts host:port with a port number (0 picks a free one) and an
// empty, IP or DNS-name host.
func checkAddr(name, addr string, required bool) error {
	if addr == "" && !required {
		return nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s must be host:port (such as 127.0.0.1:8080), not %q", name, addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("%s: the port must be a number from 0 to 65535, not %q", name, port)
	}
	if strings.ContainsAny(host, " /?#@") {
		return fmt.Errorf("%s: %q is not a host name or IP address", name, host)
	}
	return nil
}

func (c *Config) checkBaseURL() error {
	return checkLinkBase("FORMD_BASE_URL", c.BaseURL, "forms.example.com")
}

// checkDownloadBaseURL accepts no download origin, or one that is not
// formd's own: the same origin would keep nothing apart.
func (c *Config) checkDownloadBaseURL() error {
	const name = "FORMD_DOWNLOAD_BASE_URL"
	if c.DownloadBaseURL == "" {
		return nil
	}
	if err := checkLinkBase(name, c.DownloadBaseURL, "files.example-usercontent.com"); err != nil {
		return err
	}
	d, _ := url.Parse(c.DownloadBaseURL)
	if b, err := url.Parse(c.BaseURL); err == nil && strings.EqualFold(b.Scheme, d.Scheme) && strings.EqualFold(b.Host, d.Host) {
		return fmt.Errorf("%s must be another origin than FORMD_BASE_URL (a host name of its own routed to formd), not %s", name, d.Redacted())
	}
	return nil
}

// checkLinkBase accepts an absolute http(s) URL that links can be built on.
func checkLinkBase(name, value, exampleHost string) error {
	u, err := url.Parse(value)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s must be an absolute http:// or https:// URL such as https://%s", name, exampleHost)
	}
	if u.User != nil {
		return fmt.Errorf("%s must not hold a user name or password", name)
	}
	// Links are built by appending paths: a query or fragment would end up
	// in the middle of them.
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(value, "#") {
		return fmt.Errorf("%s must not have a query (?…) or fragment (#…): %s", name, u.Redacted())
	}
	return nil
}

func (c *Config) checkTrustedProxies() error {
	var proxies []string
	for _, p := range c.TrustedProxies {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if _, err := netip.ParseAddr(p); err != nil {
			if _, err := netip.ParsePrefix(p); err != nil {
				return fmt.Errorf("FORMD_TRUSTED_PROXIES: %q is neither an IP address nor a CIDR range (such as 10.0.0.0/8)", p)
			}
		}
		proxies = append(proxies, p)
	}
	c.TrustedProxies = proxies
	return nil
}
