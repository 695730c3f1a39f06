package httpapi

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
)

func authEngine(t *testing.T, perMinute float64) *gin.Engine {
	t.Helper()
	return NewServer(&application.Application{}, currentSchema{}, slog.New(slog.DiscardHandler),
		Config{BaseURL: "https://forms.example.test", AuthAttemptsPerMinute: perMinute, NewLimiter: burstOnly}).(*gin.Engine)
}

func postAuth(engine *gin.Engine, remote, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/agent/auth", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = remote
	rec := httptest.NewRecorder()
	engine.ServeHTTP(rec, req)
	return rec
}

func TestAgentAuthIsLimitedPerIP(t *testing.T) {
	engine := authEngine(t, 4)
	for i := range 4 {
		if rec := postAuth(engine, "192.0.2.1:1000", `{}`); rec.Code != http.StatusBadRequest {
			t.Fatalf("attempt %d = %d, want 400 (email missing)", i+1, rec.Code)
		}
	}
	rec := postAuth(engine, "192.0.2.1:1000", `{}`)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("5th attempt = %d (Retry-After %q), want 429 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if !strings.Contains(rec.Body.String(), MsgTooManyAuthAttempts) {
		t.Errorf("body = %s", rec.Body)
	}
	if rec := postAuth(engine, "192.0.2.2:1000", `{}`); rec.Code != http.StatusBadRequest {
		t.Errorf("another address = %d, want its own limit", rec.Code)
	}
}

// Guessing one account's password from many addresses hits the account's limit.
func TestAgentAuthIsLimitedPerAccount(t *testing.T) {
	engine := authEngine(t, 4) // an account gets 2 attempts at once
	body := `{"email":"Victim@Example.test","password":"guess guess guess"}`
	for i := range 2 {
		// The test application has no handlers: an attempt that gets past the
		// limits panics into a 500. What matters is that it got past.
		if rec := postAuth(engine, fmt.Sprintf("198.51.100.%d:1000", i+1), body); rec.Code == http.StatusTooManyRequests {
			t.Fatalf("attempt %d refused early", i+1)
		}
	}
	rec := postAuth(engine, "198.51.100.9:1000", strings.ToLower(body))
	if rec.Code != http.StatusTooManyRequests {
		t.Fatalf("3rd attempt on the account from a new address = %d, want 429", rec.Code)
	}
	if rec := postAuth(engine, "198.51.100.9:1000", `{"email":"other@example.test"}`); rec.Code == http.StatusTooManyRequests {
		t.Errorf("another account must have its own limit")
	}
}

func TestAgentAuthLimitsOff(t *testing.T) {
	engine := authEngine(t, 0)
	for range 50 {
		if rec := postAuth(engine, "192.0.2.1:1000", `{}`); rec.Code != http.StatusBadRequest {
			t.Fatalf("with the limit off: %d", rec.Code)
		}
	}
}
