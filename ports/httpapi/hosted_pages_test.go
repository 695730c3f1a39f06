package httpapi

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func errorPageBody(t *testing.T, q url.Values, referer string) (string, http.Header) {
	t.Helper()
	h := http.Header{}
	if referer != "" {
		h.Set("Referer", referer)
	}
	rec := serve(t, http.MethodGet, ErrorPagePath+"?"+q.Encode(), h, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s = %d", ErrorPagePath, rec.Code)
	}
	return rec.Body.String(), rec.Header()
}

// The page is reached by links anyone can craft: it must print only formd's words.
func TestErrorPagePrintsNoTextFromItsAddress(t *testing.T) {
	crafted := "Your account is locked. Call +1 555 0100 to unlock it."
	body, _ := errorPageBody(t, url.Values{"reason": {crafted}, "code": {crafted}, "requestId": {"<b>not an id</b>"},
		"field": {crafted, "email"}, "rule": {"required", "call us"}}, "")
	for _, leaked := range []string{"555 0100", "not an id", "call us"} {
		if strings.Contains(body, leaked) {
			t.Errorf("the page printed %q from its address:\n%s", leaked, body)
		}
	}
	if !strings.Contains(body, "page.error.default") {
		t.Errorf("an unknown code shows the generic message:\n%s", body)
	}
}

func TestErrorPageShowsFormdsWordsForCodesAndFieldErrors(t *testing.T) {
	body, _ := errorPageBody(t, url.Values{"code": {"fields"}, "requestId": {"req_0123456789abcdef01234567"},
		"field": {"message", "email"}, "rule": {"required", "email"}}, "")
	for _, want := range []string{"reason.fields", "rule.required message", "rule.email email",
		"req_0123456789abcdef01234567"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q:\n%s", want, body)
		}
	}
	for code := range pageReasons {
		page, _ := errorPageBody(t, url.Values{"code": {code}}, "")
		if !strings.Contains(page, "reason."+code) {
			t.Errorf("code %s does not show its text", code)
		}
	}
}

func TestErrorPageBackLinkStaysOnTheSiteTheVisitorCameFrom(t *testing.T) {
	cases := []struct {
		back, referer string
		shown         bool
	}{
		{"https://shop.example/contact", "https://shop.example/", true},
		{"https://shop.example/contact", "https://evil.example/page", false},
		{"https://evil.example/phish", "", false},
		{"javascript:alert(1)", "javascript:alert(1)", false},
		{"https://user@shop.example/", "https://shop.example/", false},
	}
	for _, tc := range cases {
		body, _ := errorPageBody(t, url.Values{"code": {"honeypot"}, "back": {tc.back}}, tc.referer)
		if shown := strings.Contains(body, "<a "); shown != tc.shown {
			t.Errorf("back %q from %q: link shown = %v, want %v", tc.back, tc.referer, shown, tc.shown)
		}
	}
}

func TestHostedPagesCannotBeFramed(t *testing.T) {
	for _, path := range []string{ErrorPagePath + "?code=origin", SuccessPagePath} {
		rec := serve(t, http.MethodGet, path, nil, "")
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: Content-Security-Policy %q lacks frame-ancestors 'none'", path, csp)
		}
		if rec.Header().Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: X-Frame-Options = %q", path, rec.Header().Get("X-Frame-Options"))
		}
	}
}

func TestErrorPageAddressCarriesCodesNotText(t *testing.T) {
	addr := errorPageAddress("fields", "req_x", "https://shop.example/", "", nil)
	u, err := url.Parse(addr)
	if err != nil || u.Path != ErrorPagePath || u.Query().Get("code") != "fields" || u.Query().Has("reason") {
		t.Errorf("address = %q", addr)
	}
}
