package outbound

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/formd/formd/application"
)

// DefaultTelegramAPIURL is the Telegram Bot API's address.
const DefaultTelegramAPIURL = "https://api.telegram.org"

// telegram calls the Bot API's sendMessage as the operator's bot. The token
// is part of every request's path, so no error or log line ever carries a
// request's URL.
type telegram struct {
	apiURL string
	token  string
}

func newTelegram(apiURL, token string) *telegram {
	if apiURL == "" {
		apiURL = DefaultTelegramAPIURL
	}
	return &telegram{apiURL: strings.TrimRight(apiURL, "/"), token: token}
}

// telegramAnswer is the Bot API's answer: ok, or an error with its code
// and description, and for 429 how long to wait.
type telegramAnswer struct {
	OK          bool   `json:"ok"`
	ErrorCode   int    `json:"error_code"`
	Description string `json:"description"`
	Parameters  struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

// SendTelegram implements application.Outbound.
func (s *Sender) SendTelegram(ctx context.Context, m application.TelegramMessage) error {
	if s.telegram == nil {
		return permanent("telegram is not configured on this server (FORMD_TELEGRAM_BOT_TOKEN)")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.telegram.apiURL+"/bot"+s.telegram.token+"/sendMessage", bytes.NewReader(m.Body))
	if err != nil {
		return permanent("telegram request: %v", withoutURL(err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "formd-telegram/1")
	resp, err := s.operator.Do(req)
	if err != nil {
		return fmt.Errorf("telegram: %w", transportError(req.URL.Hostname(), err))
	}
	defer resp.Body.Close()
	var answer telegramAnswer
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_ = json.Unmarshal(body, &answer)
	if resp.StatusCode >= 200 && resp.StatusCode < 300 && answer.OK {
		return nil
	}
	reason := fmt.Sprintf("telegram answered %d", resp.StatusCode)
	if answer.Description != "" {
		reason += ": " + oneLine(answer.Description, 200)
	}
	return statusError(resp, reason)
}

// withoutURL drops the request URL from a client error: the Bot API's URL
// holds the bot token.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// oneLine keeps a remote service's message short and on one line.
func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit]) + "…"
	}
	return s
}
