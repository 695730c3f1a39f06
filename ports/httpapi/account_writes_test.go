package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
)

// An account's /v1 writes share one bucket whatever form they touch; its
// reads and other accounts' writes are not counted.
func TestAccountWritesAreLimitedPerAccount(t *testing.T) {
	gin.SetMode(gin.TestMode)
	s := &Server{}
	r := gin.New()
	r.Use(func(c *gin.Context) {
		c.Set(sessionKey, application.Session{AccountID: c.GetHeader("X-Account")})
	}, s.limitAccountWrites(burstOnly(1.0/60, 2)))
	r.Any("/v1/*path", func(c *gin.Context) { c.Status(http.StatusOK) })
	do := func(method, account string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "/v1/forms/x", nil)
		req.Header.Set("X-Account", account)
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		return rec
	}
	for i, m := range []string{http.MethodPost, http.MethodPatch} {
		if got := do(m, "a").Code; got != http.StatusOK {
			t.Fatalf("write %d within the burst: %d", i+1, got)
		}
	}
	refused := do(http.MethodDelete, "a")
	if refused.Code != http.StatusTooManyRequests || refused.Header().Get("Retry-After") == "" {
		t.Fatalf("third write: %d, Retry-After %q; want 429 with Retry-After", refused.Code, refused.Header().Get("Retry-After"))
	}
	var body struct{ Message string }
	if err := json.Unmarshal(refused.Body.Bytes(), &body); err != nil || body.Message != MsgTooManyWrites {
		t.Errorf("body %s, want an ErrorResponse saying %q", refused.Body, MsgTooManyWrites)
	}
	if got := do(http.MethodGet, "a").Code; got != http.StatusOK {
		t.Errorf("a read after the writes: %d, want 200", got)
	}
	if got := do(http.MethodPost, "b").Code; got != http.StatusOK {
		t.Errorf("another account's write: %d, want 200", got)
	}
}
