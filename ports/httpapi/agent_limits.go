package httpapi

import (
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/ports/portkit"
)

// POST /agent/auth checks a password with Argon2id (19 MiB, a few
// milliseconds of a core) on every call, with no credential needed to call
// it. Three guards keep it from being a lever on formd's memory and CPU, or
// a password-guessing oracle: a per-IP and a per-account attempt limit, and a
// bound on how many attempts run at once.

// MsgTooManyAuthAttempts answers an attempt over either limit.
const MsgTooManyAuthAttempts = "Too many sign-in or registration attempts. Try again later."

// MsgAuthBusy answers an attempt that found every password check slot taken.
const MsgAuthBusy = "formd is busy checking other passwords. Try again in a moment."

// guardPasswordChecks is the chain of POST /agent/auth: the per-IP limit, a
// password check slot, then the handler with its per-account limit.
func (s *Server) guardPasswordChecks(config Config) []gin.HandlerFunc {
	slots := portkit.NewPasswordCheckSlots(runtime.GOMAXPROCS(0))
	chain := []gin.HandlerFunc{}
	var perAccount Limiter
	if perMinute := config.AuthAttemptsPerMinute; perMinute > 0 {
		perIP := s.limiter(perMinute/60, max(int(perMinute), 1))
		perAccount = s.limiter(perMinute/120, max(int(perMinute/2), 1))
		chain = append(chain, func(c *gin.Context) {
			if ok, wait := perIP.Allow(clientKey(c.ClientIP()), time.Now()); !ok {
				s.tooManyAuthAttempts(c, wait)
				return
			}
			c.Next()
		})
	}
	chain = append(chain, func(c *gin.Context) {
		if !slots.Acquire(c.Request.Context(), portkit.PasswordCheckWait) {
			portkit.SetRetryAfter(c.Writer.Header(), time.Second)
			s.fail(c, http.StatusTooManyRequests, MsgAuthBusy)
			return
		}
		defer slots.Release()
		c.Next()
	})
	return append(chain, func(c *gin.Context) { s.agentAuth(c, perAccount) })
}

func (s *Server) tooManyAuthAttempts(c *gin.Context, wait time.Duration) {
	portkit.SetRetryAfter(c.Writer.Header(), wait)
	s.fail(c, http.StatusTooManyRequests, MsgTooManyAuthAttempts)
}

// allowAccountAttempt takes a token of the account's bucket (keyed by the
// address as typed, case-folded); nil limiter means no limit.
func (s *Server) allowAccountAttempt(c *gin.Context, perAccount Limiter, email string) bool {
	if perAccount == nil {
		return true
	}
	ok, wait := perAccount.Allow(strings.ToLower(strings.TrimSpace(email)), time.Now())
	if !ok {
		s.tooManyAuthAttempts(c, wait)
	}
	return ok
}
