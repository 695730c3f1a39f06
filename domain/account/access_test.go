package account_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
)

func TestAccessRequire(t *testing.T) {
	tests := []struct {
		name    string
		access  account.Access
		allowed []account.Scope
	}{
		{name: "a session holds every scope", access: account.FullAccess(), allowed: account.Scopes()},
		{name: "a read token", access: account.TokenAccess("ws-1", []account.Scope{account.ScopeFormsRead}),
			allowed: []account.Scope{account.ScopeFormsRead}},
		{name: "a write token does not read", access: account.TokenAccess("ws-1", []account.Scope{account.ScopeFormsWrite}),
			allowed: []account.Scope{account.ScopeFormsWrite}},
		{name: "a token with every scope", access: account.TokenAccess("ws-1", account.Scopes()), allowed: account.Scopes()},
		{name: "no access at all", access: account.Access{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, s := range account.Scopes() {
				err := tt.access.Require(s)
				allowed := false
				for _, a := range tt.allowed {
					allowed = allowed || a == s
				}
				var denied *domain.PermissionDeniedError
				switch {
				case allowed && err != nil:
					t.Errorf("Require(%s) = %v, want nil", s, err)
				case !allowed && !errors.As(err, &denied):
					t.Errorf("Require(%s) = %v, want a *domain.PermissionDeniedError", s, err)
				case !allowed && !strings.Contains(denied.Message, string(s)):
					t.Errorf("Require(%s) message %q does not name the scope", s, denied.Message)
				}
			}
		})
	}
}

func TestAccessReach(t *testing.T) {
	token := account.TokenAccess("ws-1", []account.Scope{account.ScopeFormsRead})
	if !token.Sees("ws-1") || token.Sees("ws-2") || token.Sees("") {
		t.Error("a token must see its own workspace only")
	}
	if ws, bound := token.Workspace(); ws != "ws-1" || !bound {
		t.Errorf("token Workspace() = %q, %v", ws, bound)
	}
	if err := token.RequireFull(); !errors.Is(err, account.ErrTokensManageNoTokens) {
		t.Errorf("token RequireFull = %v", err)
	}

	session := account.FullAccess()
	if !session.Sees("ws-1") || !session.Sees("ws-2") {
		t.Error("a session sees every workspace of its account")
	}
	if _, bound := session.Workspace(); bound {
		t.Error("a session is bound to no workspace")
	}
	if err := session.RequireFull(); err != nil {
		t.Errorf("session RequireFull = %v", err)
	}

	var none account.Access
	if none.Sees("") || none.Sees("ws-1") || none.RequireFull() == nil {
		t.Error("the zero Access must reach nothing")
	}
	if _, bound := none.Workspace(); !bound {
		t.Error("the zero Access must not pass for a session")
	}
}

func TestTokenAccessKeepsItsOwnScopes(t *testing.T) {
	scopes := []account.Scope{account.ScopeFormsRead}
	a := account.TokenAccess("ws-1", scopes)
	scopes[0] = account.ScopeFormsWrite
	if a.Require(account.ScopeFormsWrite) == nil {
		t.Error("changing the caller's slice changed the token's scopes")
	}
}
