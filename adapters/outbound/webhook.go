// Package outbound sends the HTTP deliveries of integrations: webhooks,
// Slack and Discord posts, Telegram messages and Google Sheets rows. Every
// client dials through one SSRF guard (guard.go).
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
	"net/http"
	"strconv"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// Sender implements application.Outbound and application.IntegrationServices.
type Sender struct {
	client   *http.Client
	telegram *telegram
	sheets   *sheets
}

// NewSender builds a sender with SSRF protection, a 15 s timeout (Standard
// Webhooks' recommendation) and no redirects, with Telegram and Google
// Sheets when their options are set.
func NewSender(o Options) (*Sender, error) {
	s := &Sender{}
	var trusted []string
	if o.TelegramBotToken != "" {
		s.telegram = newTelegram(o.TelegramAPIURL, o.TelegramBotToken)
		trusted = append(trusted, s.telegram.apiURL)
	}
	if o.GoogleCredentialsFile != "" {
		var err error
		if s.sheets, err = newSheets(o.GoogleCredentialsFile, o.GoogleTokenURL, o.GoogleSheetsURL); err != nil {
			return nil, err
		}
		trusted = append(trusted, s.sheets.tokenURL, s.sheets.apiURL)
	}
	client, err := newClient(o, trusted...)
	if err != nil {
		return nil, err
	}
	s.client = client
	if s.sheets != nil {
		s.sheets.start(client)
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
		if refused(err) {
			return permanent("%v", err)
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
