package httpapi

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/ports/portkit"
)

// workspaceRoutes serve the caller's workspaces and their API tokens.
func (s *Server) workspaceRoutes(v1 *gin.RouterGroup) {
	v1.GET("/workspaces", s.listWorkspaces)
	v1.GET("/workspaces/:workspaceId/tokens", s.listTokens)
	v1.POST("/workspaces/:workspaceId/tokens", s.createToken)
	v1.DELETE("/workspaces/:workspaceId/tokens/:tokenId", s.revokeToken)
}

// workspaceJSON is the API's Workspace.
type workspaceJSON struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

// tokenJSON is the API's WorkspaceToken; Secret is the token itself, only in
// the answer that created it.
type tokenJSON struct {
	ID          string     `json:"id"`
	WorkspaceID string     `json:"workspaceId"`
	Name        string     `json:"name"`
	Prefix      string     `json:"prefix"`
	Scopes      []string   `json:"scopes"`
	CreatedAt   time.Time  `json:"createdAt"`
	LastUsedAt  *time.Time `json:"lastUsedAt"`
	ExpiresAt   *time.Time `json:"expiresAt"`
	Secret      string     `json:"secret,omitempty"`
}

func presentToken(t application.TokenRecord) tokenJSON {
	scopes := make([]string, len(t.Scopes))
	for i, s := range t.Scopes {
		scopes[i] = string(s)
	}
	return tokenJSON{ID: t.ID, WorkspaceID: t.WorkspaceID, Name: t.Name, Prefix: t.Prefix, Scopes: scopes,
		CreatedAt: t.CreatedAt.UTC(), LastUsedAt: portkit.UTC(t.LastUsedAt), ExpiresAt: portkit.UTC(t.ExpiresAt)}
}

// tokenRequest is the API's CreateWorkspaceToken. expiresAt is read as text
// so a malformed time is answered in the API's words, not the decoder's.
type tokenRequest struct {
	Name      string   `json:"name"`
	Scopes    []string `json:"scopes"`
	ExpiresAt *string  `json:"expiresAt"`
}

func (s *Server) listWorkspaces(c *gin.Context) {
	list, err := s.app.Queries.ListWorkspaces.Handle(c.Request.Context(), application.ListWorkspaces{Caller: sessionOf(c)})
	if err != nil {
		s.respondError(c, err)
		return
	}
	out := make([]workspaceJSON, len(list))
	for i, w := range list {
		out[i] = workspaceJSON{ID: w.ID, Name: w.Name, CreatedAt: w.CreatedAt.UTC()}
	}
	c.JSON(http.StatusOK, gin.H{"workspaces": out})
}

// workspaceID reads the workspaceId path parameter; anything but a UUID is not found.
func (s *Server) workspaceID(c *gin.Context) (string, bool) { return s.uuidParam(c, "workspaceId") }

func (s *Server) listTokens(c *gin.Context) {
	ws, ok := s.workspaceID(c)
	if !ok {
		return
	}
	list, err := s.app.Queries.ListWorkspaceTokens.Handle(c.Request.Context(),
		application.ListWorkspaceTokens{Caller: sessionOf(c), WorkspaceID: ws})
	if err != nil {
		s.respondError(c, err)
		return
	}
	out := make([]tokenJSON, len(list))
	for i, t := range list {
		out[i] = presentToken(t)
	}
	c.JSON(http.StatusOK, gin.H{"tokens": out})
}

func (s *Server) createToken(c *gin.Context) {
	ws, ok := s.workspaceID(c)
	if !ok {
		return
	}
	var req tokenRequest
	if !s.decodeJSON(c, &req) {
		return
	}
	cmd := application.CreateWorkspaceToken{Caller: sessionOf(c), RequestID: requestIDOf(c), WorkspaceID: ws,
		Name: req.Name, Scopes: req.Scopes}
	if req.ExpiresAt != nil {
		at, err := time.Parse(time.RFC3339, *req.ExpiresAt)
		if err != nil {
			s.respondError(c, domain.Invalid("expiresAt", "expiresAt must be an RFC 3339 date-time such as 2027-01-31T00:00:00Z"))
			return
		}
		cmd.ExpiresAt = &at
	}
	out, err := s.app.Commands.CreateWorkspaceToken.Handle(c.Request.Context(), cmd)
	if err != nil {
		s.respondError(c, err)
		return
	}
	body := presentToken(out.Token)
	body.Secret = out.Secret
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusCreated, gin.H{"token": body})
}

func (s *Server) revokeToken(c *gin.Context) {
	ws, ok := s.workspaceID(c)
	if !ok {
		return
	}
	id, ok := s.uuidParam(c, "tokenId")
	if !ok {
		return
	}
	err := s.app.Commands.RevokeWorkspaceToken.Handle(c.Request.Context(),
		application.RevokeWorkspaceToken{Caller: sessionOf(c), RequestID: requestIDOf(c), WorkspaceID: ws, TokenID: id})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
