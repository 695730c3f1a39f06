package captcha

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// siteverify plays a provider on loopback: it records each request's form
// and answers with the body and status its test gives.
type siteverify struct {
	mu     sync.Mutex
	forms  []url.Values
	types  []string
	status int
	body   string
	stall  chan struct{}
}

func (s *siteverify) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(raw))
	s.mu.Lock()
	s.forms, s.types = append(s.forms, form), append(s.types, r.Header.Get("Content-Type"))
	status, body, stall := s.status, s.body, s.stall
	s.mu.Unlock()
	if stall != nil {
		select {
		case <-stall:
		case <-r.Context().Done():
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func provider(t *testing.T, status int, body string) (*siteverify, string) {
	t.Helper()
	s := &siteverify{status: status, body: body}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/siteverify"
}

func token(p form.CaptchaProvider) application.CaptchaToken {
	return application.CaptchaToken{Provider: p, Secret: "0xSECRET", SiteKey: "site-1", Token: "tok-1", RemoteIP: "203.0.113.9"}
}

func TestEachProviderGetsTheSiteverifyForm(t *testing.T) {
	for _, tt := range []struct {
		p    form.CaptchaProvider
		opts func(string) Options
		want url.Values
	}{
		{form.CaptchaRecaptchaV2, func(u string) Options { return Options{RecaptchaURL: u} },
			url.Values{"secret": {"0xSECRET"}, "response": {"tok-1"}, "remoteip": {"203.0.113.9"}}},
		{form.CaptchaRecaptchaV3, func(u string) Options { return Options{RecaptchaURL: u} },
			url.Values{"secret": {"0xSECRET"}, "response": {"tok-1"}, "remoteip": {"203.0.113.9"}}},
		{form.CaptchaHCaptcha, func(u string) Options { return Options{HCaptchaURL: u} },
			url.Values{"secret": {"0xSECRET"}, "response": {"tok-1"}, "remoteip": {"203.0.113.9"}, "sitekey": {"site-1"}}},
		{form.CaptchaTurnstile, func(u string) Options { return Options{TurnstileURL: u} },
			url.Values{"secret": {"0xSECRET"}, "response": {"tok-1"}, "remoteip": {"203.0.113.9"}}},
	} {
		t.Run(string(tt.p), func(t *testing.T) {
			s, u := provider(t, http.StatusOK, `{"success":true,"score":0.9,"hostname":"example.com"}`)
			o, err := NewVerifier(tt.opts(u)).Verify(context.Background(), token(tt.p))
			if err != nil || o.Status != submission.CaptchaVerified || o.Score == nil || *o.Score != 0.9 {
				t.Fatalf("Verify = %+v, %v", o, err)
			}
			if len(s.forms) != 1 || s.forms[0].Encode() != tt.want.Encode() || s.types[0] != "application/x-www-form-urlencoded" {
				t.Fatalf("the provider got %v (%v), want %v form-encoded", s.forms, s.types, tt.want)
			}
		})
	}
}

func TestVerdicts(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		body   string
		want   submission.CaptchaStatus // empty: an error (no verdict)
	}{
		{"success without a score", 200, `{"success":true}`, submission.CaptchaVerified},
		{"a refused token", 200, `{"success":false,"error-codes":["invalid-input-response"]}`, submission.CaptchaInvalid},
		{"a refusal without codes", 200, `{"success":false}`, submission.CaptchaInvalid},
		{"an old or reused token", 200, `{"success":false,"error-codes":["timeout-or-duplicate"]}`, submission.CaptchaExpired},
		{"hCaptcha's reused token", 200, `{"success":false,"error-codes":["invalid-or-already-seen-response"]}`, submission.CaptchaExpired},
		{"a wrong secret", 200, `{"success":false,"error-codes":["invalid-input-secret"]}`, submission.CaptchaMisconfigured},
		{"a refusal as 400 with codes", 400, `{"success":false,"error-codes":["bad-request"]}`, submission.CaptchaInvalid},
		{"Turnstile's internal error", 200, `{"success":false,"error-codes":["internal-error"]}`, ""},
		{"a server error", 500, `{"success":true}`, ""},
		{"a bad gateway page", 502, `<html>bad gateway</html>`, ""},
		{"not JSON", 200, `OK`, ""},
		{"JSON without a verdict", 200, `{"score":1}`, ""},
		{"a redirect is not followed", 302, ``, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, u := provider(t, tt.status, tt.body)
			o, err := NewVerifier(Options{TurnstileURL: u}).Verify(context.Background(), token(form.CaptchaTurnstile))
			if tt.want == "" {
				if err == nil {
					t.Fatalf("Verify = %+v, want an error", o)
				}
				if strings.Contains(err.Error(), "0xSECRET") || strings.Contains(err.Error(), "tok-1") {
					t.Fatalf("the error shows a credential: %v", err)
				}
				return
			}
			if err != nil || o.Status != tt.want {
				t.Fatalf("Verify = %+v, %v; want %s", o, err, tt.want)
			}
		})
	}
}

func TestAProviderThatIsDownOrSlowGivesNoVerdict(t *testing.T) {
	if NewVerifier(Options{}).client.Timeout != 5*time.Second {
		t.Fatal("a verification must give up after 5 s")
	}
	s, u := provider(t, 200, `{"success":true}`)
	s.stall = make(chan struct{})
	defer close(s.stall)
	v := NewVerifier(Options{HCaptchaURL: u})
	v.client.Timeout = 50 * time.Millisecond // the test's own, so it does not wait 5 s
	if o, err := v.Verify(context.Background(), token(form.CaptchaHCaptcha)); err == nil {
		t.Fatalf("a stalled provider gave %+v", o)
	}

	srv := httptest.NewServer(http.NotFoundHandler())
	down := srv.URL
	srv.Close()
	if o, err := NewVerifier(Options{RecaptchaURL: down}).Verify(context.Background(), token(form.CaptchaRecaptchaV2)); err == nil ||
		strings.Contains(err.Error(), "0xSECRET") {
		t.Fatalf("a provider that is down gave %+v, %v", o, err)
	}
}

func TestTheProvidersOwnAddressesByDefault(t *testing.T) {
	v := NewVerifier(Options{})
	for p, want := range map[form.CaptchaProvider]string{
		form.CaptchaRecaptchaV2: "https://www.google.com/recaptcha/api/siteverify", form.CaptchaRecaptchaV3: "https://www.google.com/recaptcha/api/siteverify",
		form.CaptchaHCaptcha: "https://api.hcaptcha.com/siteverify", form.CaptchaTurnstile: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
	} {
		if v.urls[p] != want {
			t.Errorf("%s: %s, want %s", p, v.urls[p], want)
		}
	}
	if _, err := v.Verify(context.Background(), token(form.CaptchaFormd)); err == nil {
		t.Error("formd's own challenge has no provider to ask")
	}
}
