package httpapi

import (
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/time/rate"
)

// ipLimiter is a per-process, per-IP token bucket: a first line of defence
// against floods. It is not a quota (quotas live in PostgreSQL) and each
// process keeps its own buckets.
type ipLimiter struct {
	mu      sync.Mutex
	perSec  rate.Limit
	burst   int
	buckets map[string]*ipBucket
	swept   time.Time
}

type ipBucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newIPLimiter(perSec float64, burst int) *ipLimiter {
	return &ipLimiter{perSec: rate.Limit(perSec), burst: burst, buckets: map[string]*ipBucket{}, swept: time.Now()}
}

// allow takes a token for ip; when none is left it says how long to wait.
func (l *ipLimiter) allow(ip string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > time.Minute { // forget idle addresses
		for k, b := range l.buckets {
			if now.Sub(b.seen) > 10*time.Minute {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b, ok := l.buckets[ip]
	if !ok {
		b = &ipBucket{lim: rate.NewLimiter(l.perSec, l.burst)}
		l.buckets[ip] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// clientKey is the bucket of a client address: an IPv4 address itself, an
// IPv6 address by its /64. One subscriber usually holds a whole /64, so
// keying on the full address would give it 2^64 buckets.
func clientKey(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	addr = addr.Unmap()
	if addr.Is4() {
		return addr.String()
	}
	prefix, err := addr.Prefix(64)
	if err != nil {
		return ip
	}
	return prefix.String()
}

// rateLimitSubmissions answers 429 with Retry-After once an IP's bucket is empty.
func (s *Server) rateLimitSubmissions(l *ipLimiter) gin.HandlerFunc {
	return func(c *gin.Context) {
		ok, wait := l.allow(clientKey(c.ClientIP()), time.Now())
		if ok {
			c.Next()
			return
		}
		c.Header("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		s.submitFailed(c, isJavaScriptClient(c.Request), http.StatusTooManyRequests, reasonRateLimited,
			"Too many submissions from this address. Try again in a moment.", nil)
	}
}

// MsgTooManyWrites answers a /v1 write over the account's limit.
const MsgTooManyWrites = "Too many changes from this account. Try again in a moment."

// limitAccountWrites answers 429 with Retry-After once the caller's account
// has spent its bucket of /v1 writes; reads are not counted. It runs after
// authenticate, so the bucket is the account's whatever credential it uses.
func (s *Server) limitAccountWrites(l *ipLimiter) gin.HandlerFunc {
	return func(c *gin.Context) {
		switch c.Request.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			c.Next()
			return
		}
		ok, wait := l.allow(sessionOf(c).AccountID, time.Now())
		if ok {
			c.Next()
			return
		}
		retryAfter(c, wait)
		s.fail(c, http.StatusTooManyRequests, MsgTooManyWrites)
	}
}
