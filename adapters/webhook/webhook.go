// Package webhook sends webhook deliveries: a JSON POST per delivery with the
// Standard Webhooks headers: the delivery id as webhook-id so receivers can
// drop duplicates, webhook-timestamp, and webhook-signature when signed.
// Outbound connections are checked at dial time against private, loopback and
// other internal networks (SSRF), unless explicitly allowed for tests.
package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"time"

	"code.dny.dev/ssrf"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

// Sender implements application.WebhookSender.
type Sender struct{ client *http.Client }

// Options configure the sender.
type Options struct {
	// AllowPrivate lets webhooks reach loopback and private networks (tests only).
	AllowPrivate bool
	// CAFile adds a PEM certificate authority to the system pool (tests only).
	CAFile string
}

// NewSender builds a sender with SSRF protection, a 15 s timeout (Standard
// Webhooks' recommendation) and no redirects.
func NewSender(o Options) (*Sender, error) {
	guard := ssrf.New(ssrf.WithPorts(80, 443))
	if o.AllowPrivate {
		guard = ssrf.New(ssrf.WithAnyPort(),
			ssrf.WithAllowedV4Prefixes(netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8"),
				netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("192.168.0.0/16")),
			ssrf.WithAllowedV6Prefixes(netip.MustParsePrefix("::1/128")))
	}
	dialer := &net.Dialer{Timeout: 5 * time.Second, Control: guard.Safe}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, err
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errors.New("webhook CA file holds no PEM certificate")
		}
		tlsConfig.RootCAs = pool
	}
	return &Sender{client: &http.Client{
		Timeout:       15 * time.Second,
		Transport:     &http.Transport{DialContext: dialer.DialContext, TLSClientConfig: tlsConfig, MaxIdleConnsPerHost: 4},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

// Send implements application.WebhookSender: 2xx is success; 410 Gone is
// application.ErrGone; 4xx other than 408 and 429 is permanent; anything
// else may be retried.
func (s *Sender) Send(ctx context.Context, w application.Webhook) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(w.Body))
	if err != nil {
		return fmt.Errorf("%w: %v", application.ErrPermanent, err)
	}
	if domain.IsObfuscatedIPv4(req.URL.Hostname()) {
		return fmt.Errorf("%w: host %q is a numeric address not written in dotted decimal", application.ErrPermanent, req.URL.Hostname())
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "formd-webhook/1")
	req.Header.Set("webhook-id", w.ID)
	ts := w.Timestamp
	if ts == 0 {
		ts = time.Now().Unix()
	}
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	if w.Signature != "" {
		req.Header.Set("webhook-signature", w.Signature)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		// An address the SSRF guard refuses stays refused: retrying cannot help.
		if errors.Is(err, ssrf.ErrProhibitedIP) || errors.Is(err, ssrf.ErrProhibitedPort) || errors.Is(err, ssrf.ErrProhibitedNetwork) {
			return fmt.Errorf("%w: %v", application.ErrPermanent, err)
		}
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusGone:
		return application.ErrGone
	case resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != 408 && resp.StatusCode != 429:
		return fmt.Errorf("%w: receiver answered %d", application.ErrPermanent, resp.StatusCode)
	}
	return fmt.Errorf("receiver answered %d", resp.StatusCode)
}
