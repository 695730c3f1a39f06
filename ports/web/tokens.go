package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/ports/portkit"
)

// workspaceTokens is one workspace with its API tokens.
type workspaceTokens struct {
	ID, Name string
	Tokens   []application.TokenRecord
}

// tokensPage lists every workspace's tokens, with the create form.
type tokensPage struct {
	Workspaces []workspaceTokens
	Scopes     []account.Scope
	Form       tokenFields
	// Created is the token just made, its secret shown this once.
	Created *application.WorkspaceTokenCreated
}

// tokenFields are the create form's fields, as typed.
type tokenFields struct {
	WorkspaceID, Name, ExpiresOn string
	Scopes                       map[string]bool
	Errors                       fieldErrors
}

func (s *Server) listTokens(w http.ResponseWriter, r *http.Request, v *visitor) {
	s.showTokens(w, r, v, http.StatusOK, tokensPage{Form: tokenFields{Scopes: map[string]bool{string(account.ScopeFormsRead): true}}},
		notices[r.URL.Query().Get("notice")])
}

// showTokens draws the page around page's form and created token.
func (s *Server) showTokens(w http.ResponseWriter, r *http.Request, v *visitor, status int, page tokensPage, notice string) {
	workspaces, err := s.app.Queries.ListWorkspaces.Handle(r.Context(), application.ListWorkspaces{Caller: v.Session})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	for _, ws := range workspaces {
		tokens, err := s.app.Queries.ListWorkspaceTokens.Handle(r.Context(), application.ListWorkspaceTokens{Caller: v.Session, WorkspaceID: ws.ID})
		if err != nil {
			s.failed(w, r, err)
			return
		}
		page.Workspaces = append(page.Workspaces, workspaceTokens{ID: ws.ID, Name: ws.Name, Tokens: tokens})
	}
	page.Scopes = account.Scopes()
	s.render(w, r, status, "tokens", view{Title: "API tokens", Section: "tokens", Visitor: v, Notice: notice, Alert: page.Form.Errors[""], Data: page})
}

// createToken makes a workspace API token through the same command as
// POST /v1/workspaces/{id}/tokens; the answer shows its secret this once.
func (s *Server) createToken(w http.ResponseWriter, r *http.Request, v *visitor) {
	_ = r.ParseForm()
	in := tokenFields{WorkspaceID: r.PostFormValue("workspaceId"), Name: strings.TrimSpace(r.PostFormValue("name")),
		ExpiresOn: strings.TrimSpace(r.PostFormValue("expiresOn")), Scopes: map[string]bool{}}
	for _, sc := range r.PostForm["scopes"] {
		in.Scopes[sc] = true
	}
	again := func(problems fieldErrors) {
		in.Errors = problems
		s.showTokens(w, r, v, http.StatusBadRequest, tokensPage{Form: in}, "")
	}
	workspaceID, ok := portkit.ID(in.WorkspaceID)
	if !ok {
		again(fieldErrors{"workspaceId": "Choose a workspace."})
		return
	}
	cmd := application.CreateWorkspaceToken{Caller: v.Session, RequestID: requestIDOf(r), WorkspaceID: workspaceID,
		Name: in.Name, Scopes: r.PostForm["scopes"]}
	if in.ExpiresOn != "" {
		day, err := time.Parse(time.DateOnly, in.ExpiresOn)
		if err != nil {
			again(fieldErrors{"expiresOn": "Enter a date such as 2027-01-31, or leave it empty for a token that never expires."})
			return
		}
		end := day.AddDate(0, 0, 1) // valid through the whole day (UTC)
		cmd.ExpiresAt = &end
	}
	out, err := s.app.Commands.CreateWorkspaceToken.Handle(r.Context(), cmd)
	if err != nil {
		if problems, ok := formProblem(err, map[string]string{"name": "name", "scopes": "scopes", "expiresAt": "expiresOn"}); ok {
			again(problems)
			return
		}
		s.failed(w, r, err)
		return
	}
	s.showTokens(w, r, v, http.StatusCreated, tokensPage{Created: &out,
		Form: tokenFields{Scopes: map[string]bool{string(account.ScopeFormsRead): true}}}, "")
}

// revokeToken deletes a token: it stops working at once, in every process.
func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request, v *visitor) {
	ws, wsOK := portkit.ID(r.PathValue("workspaceID"))
	token, tokenOK := portkit.ID(r.PathValue("tokenID"))
	if !wsOK || !tokenOK {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	err := s.app.Commands.RevokeWorkspaceToken.Handle(r.Context(), application.RevokeWorkspaceToken{
		Caller: v.Session, RequestID: requestIDOf(r), WorkspaceID: ws, TokenID: token})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/tokens?notice=token-revoked", http.StatusSeeOther)
}
