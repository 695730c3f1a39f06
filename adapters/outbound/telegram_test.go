package outbound_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/formd/formd/adapters/outbound"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
)

const botToken = "123456:ABC-secret-bot-token"

// botAPI answers sendMessage as the Bot API does, recording each call.
type botAPI struct {
	mu     sync.Mutex
	bodies [][]byte
	status int
	answer string
}

func (b *botAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/bot"+botToken+"/sendMessage" || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"ok":false,"error_code":404,"description":"Not Found"}`)
		return
	}
	b.mu.Lock()
	b.bodies = append(b.bodies, body)
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if b.status != 0 {
		w.WriteHeader(b.status)
		_, _ = io.WriteString(w, b.answer)
		return
	}
	_, _ = io.WriteString(w, `{"ok":true,"result":{"message_id":1}}`)
}

func telegramSender(t *testing.T, apiURL string) *outbound.Sender {
	t.Helper()
	s, err := outbound.NewSender(outbound.Options{TelegramBotToken: botToken, TelegramAPIURL: apiURL})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The operator's Bot API address is trusted past the SSRF guard (a test
// or an on-premises gateway may be on loopback) while a user's webhook to
// loopback stays refused.
func TestTelegramSendsTheMessageWithTheOperatorsBot(t *testing.T) {
	api := &botAPI{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	s := telegramSender(t, srv.URL+"/")
	body := []byte(`{"chat_id":"-1001","text":"hi"}`)
	if err := s.SendTelegram(t.Context(), application.TelegramMessage{ID: "d1", Body: body}); err != nil {
		t.Fatal(err)
	}
	if len(api.bodies) != 1 || string(api.bodies[0]) != string(body) {
		t.Fatalf("Bot API got %q, want the message body once", api.bodies)
	}
	if err := s.Send(t.Context(), application.Webhook{ID: "d2", URL: "https://127.0.0.1/hook", Body: []byte(`{}`)}); !errors.Is(err, application.ErrPermanent) {
		t.Errorf("a user's webhook to loopback: %v, want refused", err)
	}
	if !s.Configured(form.IntegrationTelegram) || s.Configured(form.IntegrationGoogleSheets) || !s.Configured(form.IntegrationSlack) {
		t.Error("Configured should report Telegram and webhook types, not Sheets")
	}
}

func TestTelegramFailuresNeverShowTheBotToken(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		answer    string
		permanent bool
		says      string
	}{
		{"chat not found", 400, `{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`, true, "telegram answered 400: Bad Request: chat not found"},
		{"bot blocked", 403, `{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}`, true, "bot was blocked"},
		{"flood control", 429, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 3","parameters":{"retry_after":3}}`, false, "telegram answered 429"},
		{"server error", 502, `bad gateway`, false, "telegram answered 502"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(&botAPI{status: tt.status, answer: tt.answer})
			defer srv.Close()
			err := telegramSender(t, srv.URL).SendTelegram(t.Context(), application.TelegramMessage{ID: "d1", Body: []byte(`{}`)})
			if err == nil || errors.Is(err, application.ErrPermanent) != tt.permanent || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("err = %v, want permanent=%v saying %q", err, tt.permanent, tt.says)
			}
			if err != nil && strings.Contains(err.Error(), botToken) {
				t.Errorf("the bot token leaked: %v", err)
			}
		})
	}
	srv := httptest.NewServer(&botAPI{})
	srv.Close() // nothing listens: the client's error names the URL, which holds the token
	err := telegramSender(t, srv.URL).SendTelegram(t.Context(), application.TelegramMessage{ID: "d1", Body: []byte(`{}`)})
	if err == nil || errors.Is(err, application.ErrPermanent) || strings.Contains(err.Error(), botToken) {
		t.Errorf("unreachable Bot API: %v, want a retryable error without the token", err)
	}
}

func TestTelegramWithoutABotIsAPermanentFailure(t *testing.T) {
	s, err := outbound.NewSender(outbound.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.SendTelegram(t.Context(), application.TelegramMessage{ID: "d1", Body: []byte(`{}`)})
	if !errors.Is(err, application.ErrPermanent) || !strings.Contains(err.Error(), "FORMD_TELEGRAM_BOT_TOKEN") {
		t.Errorf("err = %v, want a permanent failure naming the setting", err)
	}
	if s.Configured(form.IntegrationTelegram) {
		t.Error("Configured(telegram) without a bot token")
	}
}

// Telegram's flood control answers 429 with Retry-After: the next attempt
// waits for it, as a webhook's does.
func TestTelegramFloodControlPassesOnRetryAfter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "17")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 17","parameters":{"retry_after":17}}`)
	}))
	defer srv.Close()
	err := telegramSender(t, srv.URL).SendTelegram(t.Context(), application.TelegramMessage{ID: "d1", Body: []byte(`{}`)})
	var ra *application.RetryAfter
	if !errors.As(err, &ra) || ra.Wait != 17*time.Second || errors.Is(err, application.ErrPermanent) {
		t.Errorf("err = %v, want a retry after 17 s", err)
	}
}
