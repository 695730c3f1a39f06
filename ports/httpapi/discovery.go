package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// discoveryRoutes serve the documents agents use to find and register with formd.
func (s *Server) discoveryRoutes(r *gin.Engine) {
	r.GET("/auth.md", s.authMarkdown)
	r.GET("/.well-known/api-catalog", s.apiCatalog)
	r.GET("/.well-known/oauth-protected-resource", s.protectedResource)
	r.GET("/.well-known/oauth-authorization-server", s.authorizationServer)
}

func (s *Server) authMarkdown(c *gin.Context) {
	base := s.config.BaseURL
	c.Data(http.StatusOK, "text/markdown; charset=utf-8", []byte(`# Registering with formd

1. POST `+base+`/agent/auth with {"email": "you@example.com", "type": "user_claimed"} (optionally "password", at least 12 characters).
2. The response's `+"`credential`"+` is a full-account session token: send it as "Authorization: Bearer <SESSION_TOKEN>". Treat it like a password; never log it or put it in a web page.
3. Open the link in the account verification email and press its page's button (opening alone verifies nothing); until then POST /v1/forms is refused.
4. POST `+base+`/v1/forms with {"name": ..., "recipientEmail": ...}; the response carries the form's public accessKey.
5. The recipient follows the link in their verification email; then live submissions to `+base+`/submit are delivered. Dry runs (header X-Service-Dry-Run: true) work before that.
6. For ongoing automation, create a workspace API token with the session: GET `+base+`/v1/workspaces, then POST `+base+`/v1/workspaces/{workspaceId}/tokens with {"name": "CI", "scopes": ["forms:read"]}. The answer's secret (fdw_…) is shown once; it reaches that workspace only, through the routes its scopes allow (see /openapi.json), and DELETE …/tokens/{tokenId} ends it at once.

## MCP server

`+base+`/mcp is a Model Context Protocol server (Streamable HTTP transport, stateless: no Mcp-Session-Id, any formd process answers any request). Connect an MCP client to it with the same credential as /v1 in every request: "Authorization: Bearer <token>".

- Which credential: a workspace API token (fdw_…, made as in step 6 or on the dashboard's Tokens page, `+base+`/dashboard/tokens) with the scopes the agent needs — forms:read to list and read, forms:write to create and change forms, resend verifications, configure, test and retry, submissions:test to read the test inbox, submissions:read to list and read archived submissions and the Spam folder, submissions:delete to erase them and to review held spam — or the session token from POST /agent/auth (full access). A missing or invalid credential is HTTP 401 with WWW-Authenticate: Bearer; a credential without the scope a tool needs gets a tool error with the API's message.
- Tools: list_forms, create_form, update_form, get_form_history, get_form_version, restore_form_version, get_recipient_verification, resend_recipient_verification, dry_run_submission, list_deliveries, retry_delivery, configure_integration, test_integration, read_test_inbox, clear_test_inbox, list_submissions, get_submission, list_spam, get_spam, review_spam. Each lists its JSON schema (tools/list).
- Checking a form end to end without sending anything: update_form with testMode true (or POST /submit with X-Service-Test: true and a credential holding submissions:test); every submission is then judged like a live one, nothing is sent, and read_test_inbox shows the exact mails, webhook requests (marked test, signature redacted), chat messages and sheet rows it would have sent.
- What needs a person, which no tool can do: (1) the account's email verification, step 3, before create_form works; (2) the recipient's verification: the recipient opens the link in the email formd sends them and presses its button. get_recipient_verification shows the status and resend_recipient_verification sends a new link; dry_run_submission works before either.

Lost the password, or someone registered your address before you? POST `+base+`/agent/auth/password-reset with {"email": "you@example.com"}: the mail's link sets a new password and ends every session of the account.
`))
}

func (s *Server) apiCatalog(c *gin.Context) {
	base := s.config.BaseURL
	c.Header("Content-Type", "application/linkset+json")
	c.JSON(http.StatusOK, gin.H{"linkset": []gin.H{{
		"anchor":       base + "/v1",
		"service-desc": []gin.H{{"href": base + "/openapi.json", "type": "application/json"}},
		"service-doc":  []gin.H{{"href": base + "/auth.md", "type": "text/markdown", "title": "Agent registration"}},
		"status":       []gin.H{{"href": base + "/readyz", "type": "application/json"}},
	}, {
		// The MCP server describes its tools itself (tools/list); auth.md
		// says which credential it takes and what needs a person.
		"anchor":      base + "/mcp",
		"service-doc": []gin.H{{"href": base + "/auth.md#mcp-server", "type": "text/markdown", "title": "MCP server (Streamable HTTP): credentials and tools"}},
		"status":      []gin.H{{"href": base + "/readyz", "type": "application/json"}},
	}}})
}

func (s *Server) protectedResource(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{
		"resource":              s.config.BaseURL + "/v1",
		"resource_name":         "formd control plane",
		"authorization_servers": []string{s.config.BaseURL},
		"scopes_supported":      sessionScopes,
	})
}

func (s *Server) authorizationServer(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{
		"issuer":                   s.config.BaseURL,
		"registration_endpoint":    s.config.BaseURL + "/agent/auth",
		"scopes_supported":         sessionScopes,
		"grant_types_supported":    []string{},
		"response_types_supported": []string{},
		"service_documentation":    s.config.BaseURL + "/auth.md",
	})
}
