package httpapi

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
)

type agentAuthRequest struct {
	Email                   string `json:"email"`
	Type                    string `json:"type"`
	Name                    string `json:"name"`
	Password                string `json:"password"`
	RequestedCredentialType string `json:"requested_credential_type"`
}

type agentCapabilities struct {
	DomainRestrictionsDefault   bool `json:"domainRestrictionsDefault"`
	DryRunSubmissions           bool `json:"dryRunSubmissions"`
	RecipientVerificationResend bool `json:"recipientVerificationResend"`
	RecipientVerificationStatus bool `json:"recipientVerificationStatus"`
}

type agentAuthResponse struct {
	CredentialType       string            `json:"credential_type"`
	Credential           string            `json:"credential"`
	Scopes               []string          `json:"scopes"`
	RegistrationID       string            `json:"registration_id,omitempty"`
	RegistrationType     string            `json:"registration_type,omitempty"`
	CredentialExpires    *string           `json:"credential_expires"`
	VerificationRequired bool              `json:"verification_required"`
	Capabilities         agentCapabilities `json:"capabilities"`
}

// sessionScopes are the setup operations a registration session is meant for;
// they do not restrict the full-account session (spec: Authentication, rule 2).
var sessionScopes = func() []string {
	out := make([]string, len(account.Scopes()))
	for i, s := range account.Scopes() {
		out[i] = string(s)
	}
	return out
}()

// MsgTooManyRegistrations answers a registration over the per-network limit
// (FORMD_REGISTER_RATE), whether or not the address has an account.
const MsgTooManyRegistrations = "Too many registrations from this network. Try again later."

// agentAuth registers or signs in (POST /agent/auth); guardPasswordChecks
// runs before it and gives it the per-account limiter (nil: no limit).
func (s *Server) agentAuth(c *gin.Context, perAccount Limiter) {
	var req agentAuthRequest
	if !s.decodeJSON(c, &req) {
		return
	}
	if req.Email == "" {
		s.fail(c, http.StatusBadRequest, "email is required.")
		return
	}
	if !s.allowAccountAttempt(c, perAccount, req.Email) {
		return
	}
	giveBack := func() {}
	if l := s.config.Registrations; l != nil {
		ok, wait, back := l.Take(clientKey(c.ClientIP()), time.Now())
		if !ok {
			retryAfter(c, wait)
			s.fail(c, http.StatusTooManyRequests, MsgTooManyRegistrations)
			return
		}
		giveBack = back
	}
	out, err := s.app.Commands.Register.Handle(c.Request.Context(), application.Register{
		Email: req.Email, Type: req.Type, Name: req.Name, Password: req.Password,
		RequestedCredentialType: req.RequestedCredentialType, RequestID: requestIDOf(c), Language: s.requestLanguage(c),
	})
	if !application.TellsAccountExists(out, err) {
		giveBack()
	}
	if err != nil {
		s.respondError(c, err)
		return
	}
	expires := out.ExpiresAt.UTC().Format(time.RFC3339)
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, agentAuthResponse{
		CredentialType: "session_token", Credential: out.SessionToken, Scopes: sessionScopes,
		RegistrationID: out.AccountID, RegistrationType: "user_claimed", CredentialExpires: &expires,
		VerificationRequired: out.VerificationRequired,
		Capabilities: agentCapabilities{
			DomainRestrictionsDefault: false, DryRunSubmissions: true,
			RecipientVerificationResend: true, RecipientVerificationStatus: true,
		},
	})
}
