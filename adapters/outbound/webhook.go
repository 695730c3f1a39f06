// Package outbound sends the HTTP deliveries of integrations: webhooks,
// Slack and Discord posts, Telegram messages and Google Sheets rows. Every
// URL a user chose dials through one SSRF guard (guard.go); only the
// operator's own endpoints use a client without it.
//
// A webhook delivery is a JSON POST with the Standard Webhooks headers: the
// delivery id as webhook-id so receivers can drop duplicates,
// webhook-timestamp, and webhook-signature when signed.
package outbound

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// Sender implements application.Outbound and application.IntegrationServices.
type Sender struct {
	// client sends to tenants' URLs, always through the SSRF guard.
	client *http.Client
	// operator sends to the operator's own endpoints (Telegram, Google).
	operator *http.Client
	telegram *telegram
	sheets   *sheets
}

// NewSender builds a sender with SSRF protection, a 15 s timeout (Standard
// Webhooks' recommendation) and no redirects, with Telegram and Google
// Sheets when their options are set.
func NewSender(o Options) (*Sender, error) {
	s := &Sender{}
	if o.TelegramBotToken != "" {
		s.telegram = newTelegram(o.TelegramAPIURL, o.TelegramBotToken)
	}
	if o.GoogleCredentialsFile != "" {
		var err error
		if s.sheets, err = newSheets(o.GoogleCredentialsFile, o.GoogleTokenURL, o.GoogleSheetsURL); err != nil {
			return nil, err
		}
	}
	c, err := newClients(o)
	if err != nil {
		return nil, err
	}
	s.client, s.operator = c.tenant, c.operator
	if s.sheets != nil {
		s.sheets.start(c.operator)
	}
	return s, nil
}

// Configured implements application.IntegrationServices.
func (s *Sender) Configured(t form.IntegrationType) bool {
	switch t {
	case form.IntegrationTelegram:
		return s.telegram != nil
	case form.IntegrationGoogleSheets:
		return s.sheets != nil
	}
	return true
}

// Send implements application.WebhookSender: 2xx is success; 410 Gone is
// application.ErrGone; 4xx other than 408 and 429 is permanent; anything
// else may be retried, and a 429 or 503 with a Retry-After header is an
// application.RetryAfter carrying the receiver's wait.
func (s *Sender) Send(ctx context.Context, w application.Webhook) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(w.Body))
	if err != nil {
		return fmt.Errorf("%w: %v", application.ErrPermanent, err)
	}
	if domain.IsObfuscatedIPv4(req.URL.Hostname()) {
		return permanent("refused: %s is a numeric address not written in dotted decimal (SSRF guard)", req.URL.Hostname())
	}
	if w.Timestamp == 0 {
		w.Timestamp = time.Now().Unix()
	}
	for _, h := range w.Headers() {
		req.Header.Set(h.Name, h.Value)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return transportError(req.URL.Hostname(), err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	if resp.StatusCode == http.StatusGone {
		return application.ErrGone
	}
	return statusError(resp, fmt.Sprintf("receiver answered %d", resp.StatusCode))
}

// retryAfter reads a Retry-After header (RFC 9110, section 10.2.3):
// delta-seconds or an HTTP-date. It reports false for a missing,
// unparseable, zero or past value, which leaves the retry schedule alone.
// A number too large for a Duration is the longest Duration: the delivery
// caps what a receiver may ask anyway.
func retryAfter(value string, now time.Time) (time.Duration, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if strings.Trim(value, "0123456789") == "" {
		secs, err := strconv.ParseInt(value, 10, 64)
		if err != nil || secs > int64(math.MaxInt64/time.Second) {
			return math.MaxInt64, true // only a range error gets here: all digits
		}
		return time.Duration(secs) * time.Second, secs > 0
	}
	at, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	wait := at.Sub(now)
	return wait, wait > 0
}
