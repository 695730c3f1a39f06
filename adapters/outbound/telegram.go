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
	"strconv"
	"strings"
	"sync"
	"time"

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

	mu       sync.Mutex
	username string // the bot's, once getMe told it
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

// telegramChat is the chat of an update's message.
type telegramChat struct {
	ID int64 `json:"id"`
}

// telegramMessage is what formd reads of a message or channel post.
type telegramMessage struct {
	Chat telegramChat `json:"chat"`
	Text string       `json:"text"`
}

// telegramUpdates is getUpdates' answer.
type telegramUpdates struct {
	telegramAnswer
	Result []struct {
		UpdateID    int64            `json:"update_id"`
		Message     *telegramMessage `json:"message"`
		ChannelPost *telegramMessage `json:"channel_post"`
	} `json:"result"`
}

// call makes one Bot API call with a JSON body and decodes its answer into
// out; a refusal is an error with the API's description, never the URL.
func (t *telegram) call(ctx context.Context, client *http.Client, method string, body any, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.apiURL+"/bot"+t.token+"/"+method, bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("telegram %s: %v", method, withoutURL(err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "formd-telegram/1")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("telegram %s: %w", method, transportError(req.URL.Hostname(), err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("telegram %s: %v", method, withoutURL(err))
	}
	var answer telegramAnswer
	_ = json.Unmarshal(data, &answer)
	if resp.StatusCode != http.StatusOK || !answer.OK {
		return fmt.Errorf("telegram %s answered %d: %s", method, resp.StatusCode, oneLine(answer.Description, 200))
	}
	return json.Unmarshal(data, out)
}

// Updates implements application.TelegramBot: getUpdates from offset,
// long-polling for up to wait, asking only for messages and channel posts.
func (s *Sender) Updates(ctx context.Context, offset int64, wait time.Duration) ([]application.TelegramUpdate, error) {
	if s.telegram == nil {
		return nil, permanent("telegram is not configured on this server (FORMD_TELEGRAM_BOT_TOKEN)")
	}
	var answer telegramUpdates
	err := s.telegram.call(ctx, s.operator, "getUpdates", map[string]any{"offset": offset, "timeout": int(wait.Seconds()),
		"allowed_updates": []string{"message", "channel_post"}}, &answer)
	if err != nil {
		return nil, err
	}
	out := make([]application.TelegramUpdate, 0, len(answer.Result))
	for _, r := range answer.Result {
		u := application.TelegramUpdate{ID: r.UpdateID}
		m := r.Message
		if m == nil {
			m = r.ChannelPost
		}
		if m != nil && m.Chat.ID != 0 {
			u.ChatID, u.Text = strconv.FormatInt(m.Chat.ID, 10), m.Text
		}
		out = append(out, u)
	}
	return out, nil
}

// Username implements application.TelegramBot: the bot's username from
// getMe, asked once and then remembered.
func (s *Sender) Username(ctx context.Context) (string, error) {
	if s.telegram == nil {
		return "", permanent("telegram is not configured on this server (FORMD_TELEGRAM_BOT_TOKEN)")
	}
	s.telegram.mu.Lock()
	defer s.telegram.mu.Unlock()
	if s.telegram.username != "" {
		return s.telegram.username, nil
	}
	var answer struct {
		Result struct {
			Username string `json:"username"`
		} `json:"result"`
	}
	if err := s.telegram.call(ctx, s.operator, "getMe", struct{}{}, &answer); err != nil {
		return "", err
	}
	s.telegram.username = answer.Result.Username
	return s.telegram.username, nil
}
