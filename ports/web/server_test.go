package web_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/ports/web"
)

// The dashboard is tested here for what holds on every page, whatever the
// use cases behind it: its security headers and its CSRF checks. The pages
// themselves are driven in Chromium by features/dashboard_test.go.

// sessionToken is the one session the fake read model knows.
const sessionToken = "fds_the-one-session-of-the-test-account"

type fakeRead struct{ application.ReadModel }

func (fakeRead) SessionByTokenHash(_ context.Context, hash []byte, _ time.Time) (application.AccountRecord, error) {
	if string(hash) != string(application.HashSecret(sessionToken)) {
		return application.AccountRecord{}, domain.ErrNotFound
	}
	return application.AccountRecord{ID: "acc-1", Email: "person@example.com"}, nil
}

type noTokens struct{ application.WorkspaceTokens }

type clock struct{}

func (clock) Now() time.Time { return time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC) }

// keyedHasher is an HMAC, as the real value hasher is.
type keyedHasher struct{}

func (keyedHasher) HashValue(formID, field, value string) string {
	mac := hmac.New(sha256.New, []byte("test key"))
	mac.Write([]byte(formID + "\x00" + field + "\x00" + value))
	return hex.EncodeToString(mac.Sum(nil)[:16])
}

// sessionStore records the sessions ended.
type sessionStore struct {
	application.Tx
	ended int
}

func (s *sessionStore) InTx(_ context.Context, _ application.Metadata, fn func(application.Tx) error) error {
	return fn(s)
}
func (s *sessionStore) EndSession(context.Context, []byte) error {
	s.ended++
	return nil
}

// newDashboard serves the dashboard in front of a next handler that
// answers 299, so a request passed on is told from one the dashboard took.
func newDashboard(t *testing.T, config web.Config) (http.Handler, *sessionStore) {
	t.Helper()
	auth := application.NewAuthenticateHandler(fakeRead{}, noTokens{}, clock{})
	store := &sessionStore{}
	app := &application.Application{
		Queries: application.Queries{Authenticate: auth,
			RequestForgeryTokens: application.NewRequestForgeryTokenHandler(keyedHasher{})},
		Commands: application.Commands{SignOut: application.NewSignOutHandler(store, auth)},
	}
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(299) })
	return web.NewHandler(app, slog.New(slog.NewTextHandler(io.Discard, nil)), config, next), store
}

func do(h http.Handler, method, path string, form url.Values, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, path, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, c := range cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

var session = &http.Cookie{Name: web.SessionCookie, Value: sessionToken}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// csrfOf reads the CSRF token of a page's forms.
func csrfOf(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(w.Body.String())
	if m == nil {
		t.Fatalf("no csrf_token field in %s", w.Body.String())
	}
	return m[1]
}

func TestEveryDashboardResponseCarriesTheSecurityHeaders(t *testing.T) {
	h, _ := newDashboard(t, web.Config{BaseURL: "http://127.0.0.1:8080"})
	for _, tc := range []struct {
		method, path string
		signedIn     bool
		status       int
		page         bool
	}{
		{"GET", "/dashboard/sign-in", false, http.StatusOK, true},
		{"GET", "/dashboard/register", false, http.StatusOK, true},
		{"GET", "/", true, http.StatusSeeOther, true},
		{"GET", "/dashboard/forms", false, http.StatusSeeOther, true},
		{"GET", "/dashboard/no-such-page", true, http.StatusNotFound, true},
		{"POST", "/dashboard/forms", true, http.StatusForbidden, true},
		{"POST", "/dashboard/sign-in", false, http.StatusForbidden, true},
		{"GET", "/dashboard/static/dashboard.css", false, http.StatusOK, false},
		{"GET", "/dashboard/static/dashboard.js", false, http.StatusOK, false},
	} {
		var cookies []*http.Cookie
		if tc.signedIn {
			cookies = append(cookies, session)
		}
		w := do(h, tc.method, tc.path, nil, cookies...)
		if w.Code != tc.status {
			t.Errorf("%s %s: status %d, want %d", tc.method, tc.path, w.Code, tc.status)
		}
		hd := w.Header()
		if got := hd.Get("Content-Security-Policy"); got != web.ContentSecurityPolicy {
			t.Errorf("%s %s: CSP %q", tc.method, tc.path, got)
		}
		if strings.Contains(web.ContentSecurityPolicy, "unsafe-") || !strings.Contains(web.ContentSecurityPolicy, "frame-ancestors 'none'") {
			t.Errorf("the CSP allows too much: %s", web.ContentSecurityPolicy)
		}
		if hd.Get("X-Content-Type-Options") != "nosniff" || hd.Get("Referrer-Policy") != "same-origin" || hd.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s %s: headers %v", tc.method, tc.path, hd)
		}
		if cache := hd.Get("Cache-Control"); tc.page != (cache == "no-store") {
			t.Errorf("%s %s: Cache-Control %q", tc.method, tc.path, cache)
		}
	}
}

func TestPagesHaveNoInlineScriptOrStyle(t *testing.T) {
	h, _ := newDashboard(t, web.Config{})
	for _, path := range []string{"/dashboard/sign-in", "/dashboard/register", "/dashboard/nowhere"} {
		body := do(h, "GET", path, nil).Body.String()
		for _, inline := range []string{"<style", " style=", "<script>", " onclick=", " onsubmit=", "javascript:"} {
			if strings.Contains(body, inline) {
				t.Errorf("%s has %q, which the CSP would block", path, inline)
			}
		}
	}
}

func TestOtherPathsGoToTheNextHandler(t *testing.T) {
	h, _ := newDashboard(t, web.Config{})
	for _, tc := range []struct{ method, path string }{
		{"GET", "/v1/forms"}, {"POST", "/submit"}, {"POST", "/"}, {"GET", "/dashboards"}, {"GET", "/healthz"},
	} {
		if w := do(h, tc.method, tc.path, nil); w.Code != 299 {
			t.Errorf("%s %s: status %d, want the next handler's", tc.method, tc.path, w.Code)
		}
	}
}

func TestHomeSendsTheSignedInToTheDashboardAndOthersToSignIn(t *testing.T) {
	h, _ := newDashboard(t, web.Config{})
	if loc := do(h, "GET", "/", nil, session).Header().Get("Location"); loc != "/dashboard" {
		t.Errorf("signed in: Location %q", loc)
	}
	if loc := do(h, "GET", "/", nil).Header().Get("Location"); loc != "/dashboard/sign-in" {
		t.Errorf("signed out: Location %q", loc)
	}
	unknown := &http.Cookie{Name: web.SessionCookie, Value: "fds_ended"}
	if loc := do(h, "GET", "/", nil, unknown).Header().Get("Location"); loc != "/dashboard/sign-in" {
		t.Errorf("an ended session: Location %q", loc)
	}
}

// A signed-in POST needs the session's own CSRF token; sign-out is the
// action used, as it needs no other use case.
func TestASignedInPostNeedsTheSessionsCSRFToken(t *testing.T) {
	h, store := newDashboard(t, web.Config{})
	page := do(h, "GET", "/dashboard/no-such-page", nil, session)
	token := csrfOf(t, page)

	anonymousToken := csrfOf(t, do(h, "GET", "/dashboard/sign-in", nil))
	for name, form := range map[string]url.Values{
		"no token":                   {},
		"an empty token":             {"csrf_token": {""}},
		"a wrong token":              {"csrf_token": {strings.Repeat("a", len(token))}},
		"a sign-in page's token":     {"csrf_token": {anonymousToken}},
		"the token with a character": {"csrf_token": {token + "0"}},
	} {
		w := do(h, "POST", "/dashboard/sign-out", form, session)
		if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "security token") {
			t.Errorf("%s: status %d", name, w.Code)
		}
	}
	if store.ended != 0 {
		t.Fatalf("a refused sign-out ended %d sessions", store.ended)
	}
	w := do(h, "POST", "/dashboard/sign-out", url.Values{"csrf_token": {token}}, session)
	if w.Code != http.StatusSeeOther || store.ended != 1 {
		t.Fatalf("with its token: status %d, %d sessions ended", w.Code, store.ended)
	}
	if c := w.Result().Cookies(); len(c) != 1 || c[0].Name != web.SessionCookie || c[0].MaxAge >= 0 {
		t.Errorf("the session cookie is not removed: %v", c)
	}
}

// Sign-in and registration carry a token too, tied to a pre-session
// cookie: another site cannot sign a visitor in to an account of its own.
func TestSignInFormsNeedTheirPreSessionsToken(t *testing.T) {
	h, _ := newDashboard(t, web.Config{})
	page := do(h, "GET", "/dashboard/sign-in", nil)
	token := csrfOf(t, page)
	var pre *http.Cookie
	for _, c := range page.Result().Cookies() {
		if c.Name == "dashboard.presession" {
			pre = c
		}
	}
	if pre == nil || !pre.HttpOnly || pre.SameSite != http.SameSiteStrictMode {
		t.Fatalf("pre-session cookie %+v", pre)
	}
	otherToken := csrfOf(t, do(h, "GET", "/dashboard/sign-in", nil))
	for name, tc := range map[string]struct {
		form    url.Values
		cookies []*http.Cookie
	}{
		"no cookie, no token":         {url.Values{"email": {"a@example.com"}}, nil},
		"the token without cookie":    {url.Values{"csrf_token": {token}}, nil},
		"the cookie without token":    {url.Values{}, []*http.Cookie{pre}},
		"another pre-session's token": {url.Values{"csrf_token": {otherToken}}, []*http.Cookie{pre}},
	} {
		for _, path := range []string{"/dashboard/sign-in", "/dashboard/register"} {
			if w := do(h, "POST", path, tc.form, tc.cookies...); w.Code != http.StatusForbidden {
				t.Errorf("%s %s: status %d, want 403", name, path, w.Code)
			}
		}
	}
	// With both, the post reaches the form's own checks (an empty email).
	w := do(h, "POST", "/dashboard/register", url.Values{"csrf_token": {token}}, pre)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `id="email-error"`) {
		t.Errorf("with cookie and token: status %d", w.Code)
	}
}

func TestTheSessionCookieIsSecureOnHTTPS(t *testing.T) {
	for base, secure := range map[string]bool{"https://forms.example.com": true, "http://127.0.0.1:8080": false} {
		h, _ := newDashboard(t, web.Config{BaseURL: base})
		token := csrfOf(t, do(h, "GET", "/dashboard/no-such-page", nil, session))
		w := do(h, "POST", "/dashboard/sign-out", url.Values{"csrf_token": {token}}, session)
		for _, c := range w.Result().Cookies() {
			if c.Secure != secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
				t.Errorf("%s: cookie %+v", base, c)
			}
		}
		pre := do(h, "GET", "/dashboard/sign-in", nil).Result().Cookies()
		if len(pre) != 1 || pre[0].Secure != secure {
			t.Errorf("%s: pre-session cookie %+v", base, pre)
		}
	}
}

func TestSignInGoesBackOnlyToDashboardPages(t *testing.T) {
	h, _ := newDashboard(t, web.Config{})
	for next, want := range map[string]string{
		"/dashboard/tokens":     "/dashboard/tokens",
		"https://evil.example/": "/dashboard/forms",
		"//evil.example/":       "/dashboard/forms",
		"/dashboard\\@evil":     "/dashboard/forms",
		"":                      "/dashboard/forms",
	} {
		// A signed-in visitor of the sign-in page is sent on at once.
		w := do(h, "GET", "/dashboard/sign-in?next="+url.QueryEscape(next), nil, session)
		if loc := w.Header().Get("Location"); loc != want {
			t.Errorf("next=%q: Location %q, want %q", next, loc, want)
		}
	}
}

// refuseAll is a limiter whose bucket is always empty.
type refuseAll struct{ keys []string }

func (l *refuseAll) Allow(key string, _ time.Time) (bool, time.Duration) {
	l.keys = append(l.keys, key)
	return false, time.Minute
}

// Sign-in and registration are refused before any password is checked once
// the client's or the account's bucket is empty (no use case is wired here:
// reaching one would panic).
func TestSignInAttemptsAreLimitedPerClientAndPerAccount(t *testing.T) {
	for name, config := range map[string]func(*refuseAll) web.Config{
		"per IP":      func(l *refuseAll) web.Config { return web.Config{SignInPerIP: l} },
		"per account": func(l *refuseAll) web.Config { return web.Config{SignInPerAccount: l} },
	} {
		limiter := &refuseAll{}
		h, _ := newDashboard(t, config(limiter))
		for _, path := range []string{"/dashboard/sign-in", "/dashboard/register"} {
			page := do(h, "GET", path, nil)
			form := url.Values{"csrf_token": {csrfOf(t, page)}, "email": {"Person@Example.com"}, "password": {"a long passphrase"}}
			w := do(h, "POST", path, form, page.Result().Cookies()...)
			if w.Code != http.StatusTooManyRequests || !strings.Contains(w.Body.String(), "Too many sign-in or registration attempts") {
				t.Errorf("%s, %s: status %d", name, path, w.Code)
			}
		}
		want := "192.0.2.1" // httptest's client address
		if name == "per account" {
			want = "person@example.com"
		}
		if len(limiter.keys) != 2 || limiter.keys[0] != want {
			t.Errorf("%s: buckets taken %v, want %s's", name, limiter.keys, want)
		}
	}
}

// Every action of a form's tabs refuses a POST without the session's CSRF
// token before it reaches a use case (the test application has none).
func TestFormActionsNeedTheSessionsCSRFToken(t *testing.T) {
	h, _ := newDashboard(t, web.Config{})
	form := "/dashboard/forms/6f1c2a34-0d7e-4b5e-9c1a-2b3c4d5e6f70"
	for _, path := range []string{
		form + "/deliveries/0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9/retry",
		form + "/playground",
		form + "/settings",
		form + "/integrations/webhook",
		form + "/integrations/slack/test",
		form + "/integrations/webhook/rotate-secret",
	} {
		w := do(h, "POST", path, url.Values{}, session)
		if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "security token") {
			t.Errorf("%s: status %d", path, w.Code)
		}
	}
}
