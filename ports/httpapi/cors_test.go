package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/application"
)

func serve(t *testing.T, method, path string, header http.Header, body string) *httptest.ResponseRecorder {
	t.Helper()
	engine := testEngine(t)
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, vs := range header {
		req.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	engine.ServeHTTP(rec, req)
	return rec
}

func TestPreflightOnPublicRoutes(t *testing.T) {
	for _, path := range []string{"/submit", "/submit/fdk_somekey"} {
		rec := serve(t, http.MethodOptions, path, http.Header{
			"Origin":                         {"http://localhost:5173"},
			"Access-Control-Request-Method":  {"POST"},
			"Access-Control-Request-Headers": {"content-type,idempotency-key"},
		}, "")
		if rec.Code != http.StatusNoContent {
			t.Fatalf("OPTIONS %s = %d, want 204", path, rec.Code)
		}
		h := rec.Header()
		want := map[string]string{
			"Access-Control-Allow-Origin":  "http://localhost:5173",
			"Access-Control-Allow-Methods": "POST, OPTIONS",
			"Access-Control-Max-Age":       "7200",
		}
		for k, v := range want {
			if got := h.Get(k); got != v {
				t.Errorf("OPTIONS %s: %s = %q, want %q", path, k, got, v)
			}
		}
		allowed := strings.ToLower(h.Get("Access-Control-Allow-Headers"))
		for _, name := range []string{"content-type", "accept", "x-requested-with", "x-service-dry-run", "idempotency-key"} {
			if !strings.Contains(allowed, name) {
				t.Errorf("OPTIONS %s: Access-Control-Allow-Headers %q lacks %s", path, allowed, name)
			}
		}
		if !strings.Contains(strings.Join(h.Values("Vary"), ","), "Origin") {
			t.Errorf("OPTIONS %s: Vary %v lacks Origin", path, h.Values("Vary"))
		}
		if h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("OPTIONS %s allows credentials", path)
		}
	}
}

// The test engine allows one submission per IP; preflights must not spend it.
func TestPreflightSpendsNoRateLimitToken(t *testing.T) {
	engine := testEngine(t)
	do := func(method string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "/submit", strings.NewReader(`{`))
		req.Header.Set("Origin", "https://site.example")
		req.Header.Set("Content-Type", "application/json")
		req.RemoteAddr = "192.0.2.7:1234"
		rec := httptest.NewRecorder()
		engine.ServeHTTP(rec, req)
		return rec
	}
	for range 5 {
		if rec := do(http.MethodOptions); rec.Code != http.StatusNoContent {
			t.Fatalf("preflight = %d, want 204", rec.Code)
		}
	}
	if rec := do(http.MethodPost); rec.Code != http.StatusBadRequest {
		t.Fatalf("first post after preflights = %d, want 400 (malformed JSON), not a rate limit", rec.Code)
	}
	rec := do(http.MethodPost)
	if rec.Code != http.StatusTooManyRequests {
		t.Fatalf("second post = %d, want 429", rec.Code)
	}
	if rec.Header().Get("Access-Control-Allow-Origin") != "https://site.example" {
		t.Errorf("a 429 must be readable by the page: headers %v", rec.Header())
	}
	if !strings.Contains(rec.Header().Get("Access-Control-Expose-Headers"), "Retry-After") {
		t.Errorf("Retry-After must be exposed: %v", rec.Header())
	}
}

func TestActualResponsesCarryCORS(t *testing.T) {
	origin := "https://www.example.com"
	cases := []struct {
		name   string
		header http.Header
		body   string
		status int
	}{
		{"malformed body", http.Header{"Content-Type": {"application/json"}}, `{"a":`, http.StatusBadRequest},
		{"too large", http.Header{"Content-Type": {"application/json"}}, `{"a":"` + strings.Repeat("x", MaxSubmissionBytes) + `"}`, http.StatusRequestEntityTooLarge},
		// The test application has no handlers: the panic becomes a 500, which must be readable too.
		{"server error", http.Header{"Content-Type": {"application/json"}}, `{"access_key":"k"}`, http.StatusInternalServerError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.header.Set("Origin", origin)
			tc.header.Set("Accept", "application/json")
			rec := serve(t, http.MethodPost, "/submit", tc.header, tc.body)
			if rec.Code != tc.status {
				t.Fatalf("status = %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			h := rec.Header()
			if h.Get("Access-Control-Allow-Origin") != origin {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", h.Get("Access-Control-Allow-Origin"), origin)
			}
			exposed := h.Get("Access-Control-Expose-Headers")
			if !strings.Contains(exposed, "Retry-After") || !strings.Contains(exposed, "X-Request-Id") {
				t.Errorf("Access-Control-Expose-Headers = %q", exposed)
			}
			if h.Get("Access-Control-Allow-Credentials") != "" {
				t.Errorf("credentials allowed")
			}
		})
	}
}

func TestControlPlaneSendsNoCORS(t *testing.T) {
	for _, tc := range []struct{ method, path string }{
		{http.MethodOptions, "/v1/forms"},
		{http.MethodGet, "/v1/forms"},
		{http.MethodOptions, "/agent/auth"},
		{http.MethodPost, "/agent/auth"},
	} {
		rec := serve(t, tc.method, tc.path, http.Header{
			"Origin": {"https://evil.example"}, "Access-Control-Request-Method": {"POST"},
		}, "")
		for k := range rec.Header() {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("%s %s answers %s: the control plane must send no CORS headers", tc.method, tc.path, k)
			}
		}
		if tc.method == http.MethodOptions && rec.Code < 400 {
			t.Errorf("%s %s = %d: a preflight of the control plane must not succeed", tc.method, tc.path, rec.Code)
		}
	}
}

func TestOnlySerializedOriginsAreEchoed(t *testing.T) {
	for origin, want := range map[string]bool{
		"https://example.com":         true,
		"http://localhost:8080":       true,
		"null":                        true,
		"https://example.com/path":    false,
		"https://example.com?x=1":     false,
		"https://user@example.com":    false,
		"example.com":                 false,
		"":                            false,
		"https://example.com\r\nX: y": false,
	} {
		if got := isSerializedOrigin(origin); got != want {
			t.Errorf("isSerializedOrigin(%q) = %v, want %v", origin, got, want)
		}
	}
	rec := serve(t, http.MethodOptions, "/submit", http.Header{"Origin": {"https://example.com/path"}}, "")
	if rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a malformed Origin was echoed: %v", rec.Header())
	}
}

type fixedSigner struct{}

func (fixedSigner) Sign(string) string         { return strings.Repeat("ab", 32) }
func (fixedSigner) Verify(string, string) bool { return false }

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

// GET /challenge is fetched by pages on any site, so its answer is readable
// by the page's origin, and never cached: each challenge is solved once.
func TestChallengeIsReadableByTheAskingOrigin(t *testing.T) {
	app := &application.Application{Queries: application.Queries{IssueChallenge: application.NewIssueChallengeHandler(fixedSigner{}, wallClock{})}}
	engine := NewServer(app, currentSchema{}, slog.New(slog.DiscardHandler), Config{BaseURL: "https://forms.example.test"})
	req := httptest.NewRequest(http.MethodGet, ChallengePath, nil)
	req.Header.Set("Origin", "https://site.example")
	rec := httptest.NewRecorder()
	engine.ServeHTTP(rec, req)
	var c map[string]any
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &c) != nil || c["algorithm"] != "SHA-256" || c["signature"] != strings.Repeat("ab", 32) {
		t.Fatalf("GET /challenge = %d %s", rec.Code, rec.Body)
	}
	for k, want := range map[string]string{"Access-Control-Allow-Origin": "https://site.example", "Cache-Control": "no-store"} {
		if got := rec.Header().Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	pre := serve(t, http.MethodOptions, ChallengePath, http.Header{"Origin": {"https://site.example"}, "Access-Control-Request-Method": {"GET"}}, "")
	if pre.Code != http.StatusNoContent || pre.Header().Get("Access-Control-Allow-Methods") != "GET, OPTIONS" {
		t.Fatalf("preflight = %d %v", pre.Code, pre.Header())
	}
}
