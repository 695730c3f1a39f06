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

type passwordResetRequest struct {
	Email string `json:"email"`
}

type passwordResetAnswer struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// guardPasswordResets is the chain of POST /agent/auth/password-reset: the
// per-IP limit of POST /agent/auth (a bucket of its own; zero
// AuthAttemptsPerMinute disables it), then the handler. The per-address
// limit is the application's, counted in PostgreSQL for every route.
func (s *Server) guardPasswordResets(config Config) []gin.HandlerFunc {
	chain := []gin.HandlerFunc{limitBody(16 << 10)}
	if perMinute := config.AuthAttemptsPerMinute; perMinute > 0 {
		perIP := s.limiter(perMinute/60, max(int(perMinute), 1))
		chain = append(chain, func(c *gin.Context) {
			if ok, wait := perIP.Allow(clientKey(c.ClientIP()), time.Now()); !ok {
				s.tooManyAuthAttempts(c, wait)
				return
			}
			c.Next()
		})
	}
	return append(chain, s.requestPasswordReset)
}

// requestPasswordReset mails a password reset link to the address's account
// (POST /agent/auth/password-reset), answering 202 and the same words
// whether or not there is one.
func (s *Server) requestPasswordReset(c *gin.Context) {
	var req passwordResetRequest
	if !s.decodeJSON(c, &req) {
		return
	}
	if strings.TrimSpace(req.Email) == "" {
		s.fail(c, http.StatusBadRequest, "email is required.")
		return
	}
	err := s.app.Commands.RequestPasswordReset.Handle(c.Request.Context(), application.RequestPasswordReset{
		Email: req.Email, RequestID: requestIDOf(c), Language: s.requestLanguage(c),
	})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusAccepted, passwordResetAnswer{Success: true, Message: MsgPasswordResetSent})
}
