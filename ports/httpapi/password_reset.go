package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
)

// MsgPasswordResetSent answers every password reset request, whether an
// account uses the address or not: the answer must not tell which addresses
// have accounts.
const MsgPasswordResetSent = "If a formd account uses this address, a link to set a new password was sent to it. The link expires in one hour."

// Reset mails per address: a few, then one per passwordResetMailEvery, so
// the route cannot fill someone's mailbox.
const (
	passwordResetMailBurst = 3
	passwordResetMailEvery = 20 * time.Minute
)

type passwordResetRequest struct {
	Email string `json:"email"`
}

type passwordResetAnswer struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// guardPasswordResets is the chain of POST /agent/auth/password-reset: the
// per-IP limit of POST /agent/auth (a bucket of its own), then the handler
// with its per-address limit. Zero AuthAttemptsPerMinute disables both.
func (s *Server) guardPasswordResets(config Config) []gin.HandlerFunc {
	var perAddress *ipLimiter
	chain := []gin.HandlerFunc{limitBody(16 << 10)}
	if perMinute := config.AuthAttemptsPerMinute; perMinute > 0 {
		perIP := newIPLimiter(perMinute/60, max(int(perMinute), 1))
		perAddress = newIPLimiter(1/passwordResetMailEvery.Seconds(), passwordResetMailBurst)
		chain = append(chain, func(c *gin.Context) {
			if ok, wait := perIP.allow(clientKey(c.ClientIP()), time.Now()); !ok {
				s.tooManyAuthAttempts(c, wait)
				return
			}
			c.Next()
		})
	}
	return append(chain, func(c *gin.Context) { s.requestPasswordReset(c, perAddress) })
}

// requestPasswordReset mails a password reset link to the address's account
// (POST /agent/auth/password-reset), answering 202 and the same words
// whether or not there is one.
func (s *Server) requestPasswordReset(c *gin.Context, perAddress *ipLimiter) {
	var req passwordResetRequest
	if !s.decodeJSON(c, &req) {
		return
	}
	if strings.TrimSpace(req.Email) == "" {
		s.fail(c, http.StatusBadRequest, "email is required.")
		return
	}
	if !s.allowAccountAttempt(c, perAddress, req.Email) {
		return
	}
	err := s.app.Commands.RequestPasswordReset.Handle(c.Request.Context(), application.RequestPasswordReset{
		Email: req.Email, RequestID: requestIDOf(c),
	})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusAccepted, passwordResetAnswer{Success: true, Message: MsgPasswordResetSent})
}
