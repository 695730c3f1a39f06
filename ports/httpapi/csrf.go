package httpapi

import (
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
)

// MsgCrossSiteWrite answers a cookie-authenticated write that did not come
// from formd's own pages.
const MsgCrossSiteWrite = "A change made with the session cookie must come from formd's own origin as application/json; use a bearer token for API calls."

// viaCookieKey marks a request that authenticate let in by the session cookie.
const viaCookieKey = "authenticatedByCookie"

// refuseCrossSiteCookieWrites guards the control plane against cross-site
// request forgery. A browser attaches the auth.session_token cookie to any
// request to formd, even one a page on another site makes, so a write
// authenticated by the cookie alone must prove where it came from: its body is
// application/json (which another site cannot send without a CORS preflight,
// and /v1 answers none), and its Origin is formd's own or Sec-Fetch-Site says
// same-origin. Calls with an Authorization header carry their credential
// explicitly and are not affected. It runs after authenticate, so an unknown
// cookie is still a 401.
func (s *Server) refuseCrossSiteCookieWrites(c *gin.Context) {
	switch c.Request.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		c.Next()
		return
	}
	if !c.GetBool(viaCookieKey) {
		c.Next()
		return
	}
	mediaType, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
	if mediaType != "application/json" || !s.sameOrigin(c.Request) {
		s.fail(c, http.StatusForbidden, MsgCrossSiteWrite)
		return
	}
	c.Next()
}

// sameOrigin reports whether the browser says the request comes from formd's
// own origin: Sec-Fetch-Site, else an Origin equal to FORMD_BASE_URL's.
func (s *Server) sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin"
	}
	origin := r.Header.Get("Origin")
	own, err := url.Parse(s.config.BaseURL)
	if origin == "" || err != nil || own.Host == "" {
		return false
	}
	return strings.EqualFold(origin, own.Scheme+"://"+own.Host)
}
