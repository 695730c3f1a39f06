package httpapi

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
)

// CORS for the public routes. Websites on any origin post to /submit, so the
// browser must be allowed to read formd's answer; whether the submission is
// accepted is still the origin gate's decision (a refused origin gets a
// readable JSON 400, not a network error). Credentials are never allowed:
// the public routes need none, and a session cookie must never ride along.
// The control plane (/v1, /agent/auth) sends no CORS headers at all, so a
// page on another site can neither preflight nor read it.

// Headers a browser client of the public routes may send.
var corsAllowedHeaders = strings.Join([]string{
	"Content-Type", "Accept", "X-Requested-With", "X-Service-Dry-Run", "Idempotency-Key",
}, ", ")

// Headers a browser client may read from an answer besides the safelisted ones.
var corsExposedHeaders = strings.Join([]string{"Retry-After", "X-Request-Id"}, ", ")

// corsMaxAge is how long a browser may cache a preflight answer; Chromium caps it at two hours.
const corsMaxAge = 2 * 60 * 60

// publicCORS answers preflights with 204 and marks every other answer of the
// route readable by the requesting origin. It runs before the rate limit, so
// a preflight never spends a submission's token, and sets its headers before
// the handler, so refusals (400, 413, 429) and panics (500) carry them too.
func publicCORS(methods ...string) gin.HandlerFunc {
	allowMethods := strings.Join(append(methods, http.MethodOptions), ", ")
	return func(c *gin.Context) {
		h := c.Writer.Header()
		h.Add("Vary", "Origin")
		origin := c.GetHeader("Origin")
		if !isSerializedOrigin(origin) {
			if c.Request.Method == http.MethodOptions {
				c.AbortWithStatus(http.StatusNoContent) // not a CORS preflight: nothing to allow
				return
			}
			c.Next()
			return
		}
		h.Set("Access-Control-Allow-Origin", origin)
		if c.Request.Method == http.MethodOptions {
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			h.Set("Access-Control-Allow-Methods", allowMethods)
			h.Set("Access-Control-Allow-Headers", corsAllowedHeaders)
			h.Set("Access-Control-Max-Age", strconv.Itoa(corsMaxAge))
			c.AbortWithStatus(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", corsExposedHeaders)
		c.Next()
	}
}

// isSerializedOrigin reports whether v is an Origin header a browser sends:
// "null", or scheme://host[:port] with nothing else. Anything else is not
// echoed back, so a crafted value never lands in a response header.
func isSerializedOrigin(v string) bool {
	if v == "null" {
		return true
	}
	if v == "" || len(v) > 2048 {
		return false
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.Opaque != "" {
		return false
	}
	return u.Path == "" && u.RawQuery == "" && u.Fragment == "" && !strings.HasSuffix(v, "?") &&
		!strings.HasSuffix(v, "#") && strings.ToLower(u.Scheme+"://"+u.Host) == strings.ToLower(v)
}

// preflightAnswered is the handler of the OPTIONS routes; publicCORS has
// already answered, so it only exists to give gin a route to match.
func preflightAnswered(c *gin.Context) { c.AbortWithStatus(http.StatusNoContent) }
