package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/verification"
)

// The page a link opens is a plain form posting back to the link: no script
// (scanners that run none must see nothing that verifies), no framing, and a
// password field only on a password reset link's page.
func TestLinkPagesConfirmWithAPlainPost(t *testing.T) {
	gin.SetMode(gin.TestMode)
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, kind := range []verification.Kind{verification.KindAccount, verification.KindRecipient, verification.KindPasswordReset} {
		rec := httptest.NewRecorder()
		c, _ := gin.CreateTestContext(rec)
		c.Request = httptest.NewRequest(http.MethodGet, "/verify/tok-1", nil)
		s.page(c, http.StatusOK, s.confirmPage(c, application.LinkView{Kind: kind, Email: `a"<b>@example.com`}, "/verify/tok-1"))
		body, csp := rec.Body.String(), rec.Header().Get("Content-Security-Policy")
		if !strings.Contains(body, `<form method="post" action="/verify/tok-1">`) || !strings.Contains(body, `<button type="submit">`) {
			t.Errorf("%s: no form posting to the link:\n%s", kind, body)
		}
		if strings.Contains(body, "<script") || strings.Contains(body, "<b>") || strings.Contains(csp, "script-src") {
			t.Errorf("%s: script or unescaped text on the page (CSP %q):\n%s", kind, csp, body)
		}
		for _, want := range []string{"default-src 'none'", "form-action 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %s", kind, csp, want)
			}
		}
		if rec.Header().Get("Referrer-Policy") != "no-referrer" || rec.Header().Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", kind, rec.Header())
		}
		if hasPassword := strings.Contains(body, `type="password"`); hasPassword != (kind == verification.KindPasswordReset) {
			t.Errorf("%s: password field %v", kind, hasPassword)
		}
	}
}
