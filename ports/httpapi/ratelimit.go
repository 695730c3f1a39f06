package httpapi

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/ports/portkit"
)

// Limiter is a per-process token bucket per key (a client's address, an
// account): a first line of defence against floods, not a quota (quotas
// are counted in PostgreSQL), so each process keeps its own buckets.
type Limiter interface {
	// Allow takes a token of key's bucket at now; when the bucket is empty
	// it says how long until it holds one again.
	Allow(key string, now time.Time) (ok bool, wait time.Duration)
}

// NewLimiter makes the buckets of one limit: perSec tokens a second, in
// bursts of burst. cmd/formd gives adapters/ratelimit's.
type NewLimiter func(perSec float64, burst int) Limiter

// limiter makes the buckets of a limit that is on. A limit configured with
// nothing to count it would be a limit silently off, so that refuses to start.
func (s *Server) limiter(perSec float64, burst int) Limiter {
	if s.config.NewLimiter == nil {
		panic("httpapi: a rate limit is configured but Config.NewLimiter is not set")
	}
	return s.config.NewLimiter(perSec, burst)
}

// clientKey is the bucket of a client's address (portkit.ClientKey).
func clientKey(ip string) string { return portkit.ClientKey(ip) }

// rateLimitSubmissions answers 429 with Retry-After once an IP's bucket is empty.
func (s *Server) rateLimitSubmissions(l Limiter) gin.HandlerFunc {
	return func(c *gin.Context) {
		ok, wait := l.Allow(clientKey(c.ClientIP()), time.Now())
		if ok {
			c.Next()
			return
		}
		portkit.SetRetryAfter(c.Writer.Header(), wait)
		s.submitFailed(c, isJavaScriptClient(c.Request), http.StatusTooManyRequests, reasonRateLimited,
			"Too many submissions from this address. Try again in a moment.", nil)
	}
}

// MsgTooManyWrites answers a /v1 write over the account's limit.
const MsgTooManyWrites = "Too many changes from this account. Try again in a moment."

// limitAccountWrites answers 429 with Retry-After once the caller's account
// has spent its bucket of /v1 writes; reads are not counted. It runs after
// authenticate, so the bucket is the account's whatever credential it uses.
func (s *Server) limitAccountWrites(l Limiter) gin.HandlerFunc {
	return func(c *gin.Context) {
		switch c.Request.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			c.Next()
			return
		}
		ok, wait := l.Allow(sessionOf(c).AccountID, time.Now())
		if ok {
			c.Next()
			return
		}
		portkit.SetRetryAfter(c.Writer.Header(), wait)
		s.fail(c, http.StatusTooManyRequests, MsgTooManyWrites)
	}
}
