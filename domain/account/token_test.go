package account_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/domaintest"
)

// accountWithWorkspaces is registered (workspace ws-1) and holds ws-2 too.
func accountWithWorkspaces(t *testing.T, extra ...account.Event) *account.Account {
	t.Helper()
	history := append([]account.Event{
		account.Registered{AccountID: "acct-1", Email: "ada@example.com", WorkspaceID: "ws-1", WorkspaceName: "Default"},
		account.WorkspaceCreated{WorkspaceID: "ws-2", Name: "Side"},
	}, extra...)
	a, err := account.FromHistory(history)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func newToken() account.NewToken {
	return account.NewToken{ID: "tok-1", WorkspaceID: "ws-1", Name: "CI deploys", Prefix: "fdw_abcdefgh", Hash: "ab12",
		Scopes: []string{"forms:read"}}
}

func TestCreateToken(t *testing.T) {
	later := accountT0.Add(24 * time.Hour)
	laterUTC := later.UTC()
	tests := []struct {
		name   string
		mutate func(*account.NewToken)
		want   account.TokenCreated
	}{
		{name: "as given", mutate: func(*account.NewToken) {},
			want: account.TokenCreated{TokenID: "tok-1", WorkspaceID: "ws-1", Name: "CI deploys", Prefix: "fdw_abcdefgh",
				TokenHash: "ab12", Scopes: []account.Scope{account.ScopeFormsRead}, At: accountT0.UTC()}},
		{name: "scopes in canonical order, repeats collapsed", mutate: func(n *account.NewToken) {
			n.Scopes = []string{"submissions:delete", "submissions:read", "submissions:test", "forms:write", "forms:read", "forms:write"}
		}, want: account.TokenCreated{TokenID: "tok-1", WorkspaceID: "ws-1", Name: "CI deploys", Prefix: "fdw_abcdefgh",
			TokenHash: "ab12", Scopes: account.Scopes(), At: accountT0.UTC()}},
		{name: "name trimmed, expiry in UTC, another workspace of the account", mutate: func(n *account.NewToken) {
			n.Name, n.ExpiresAt, n.WorkspaceID = "  CI  ", &later, "ws-2"
		}, want: account.TokenCreated{TokenID: "tok-1", WorkspaceID: "ws-2", Name: "CI", Prefix: "fdw_abcdefgh",
			TokenHash: "ab12", Scopes: []account.Scope{account.ScopeFormsRead}, ExpiresAt: &laterUTC, At: accountT0.UTC()}},
		{name: "100-character name", mutate: func(n *account.NewToken) { n.Name = strings.Repeat("é", 100) },
			want: account.TokenCreated{TokenID: "tok-1", WorkspaceID: "ws-1", Name: strings.Repeat("é", 100), Prefix: "fdw_abcdefgh",
				TokenHash: "ab12", Scopes: []account.Scope{account.ScopeFormsRead}, At: accountT0.UTC()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := accountWithWorkspaces(t)
			n := newToken()
			tt.mutate(&n)
			if err := a.CreateToken(n, accountT0); err != nil {
				t.Fatalf("CreateToken: %v", err)
			}
			if got := a.Changes(); !reflect.DeepEqual(got, []account.Event{tt.want}) {
				t.Errorf("Changes() =\n%+v\nwant\n%+v", got, []account.Event{tt.want})
			}
			if e := a.Changes()[0].(account.TokenCreated); e.ExpiresAt != nil && e.ExpiresAt.Location() != time.UTC {
				t.Error("ExpiresAt is not UTC")
			}
		})
	}
}

func TestCreateTokenRefuses(t *testing.T) {
	past, now := accountT0.Add(-time.Second), accountT0
	tests := []struct {
		name      string
		mutate    func(*account.NewToken)
		wantField string
	}{
		{name: "blank name", mutate: func(n *account.NewToken) { n.Name = "  " }, wantField: "name"},
		{name: "101-character name", mutate: func(n *account.NewToken) { n.Name = strings.Repeat("a", 101) }, wantField: "name"},
		{name: "name over two lines", mutate: func(n *account.NewToken) { n.Name = "CI\nX-Other: y" }, wantField: "name"},
		{name: "no scopes", mutate: func(n *account.NewToken) { n.Scopes = nil }, wantField: "scopes"},
		{name: "unknown scope", mutate: func(n *account.NewToken) { n.Scopes = []string{"forms:read", "admin"} }, wantField: "scopes"},
		{name: "scope in other case", mutate: func(n *account.NewToken) { n.Scopes = []string{"Forms:Read"} }, wantField: "scopes"},
		{name: "expiry in the past", mutate: func(n *account.NewToken) { n.ExpiresAt = &past }, wantField: "expiresAt"},
		{name: "expiry now", mutate: func(n *account.NewToken) { n.ExpiresAt = &now }, wantField: "expiresAt"},
		{name: "no id", mutate: func(n *account.NewToken) { n.ID = "" }},
		{name: "no hash", mutate: func(n *account.NewToken) { n.Hash = "" }},
		{name: "no prefix", mutate: func(n *account.NewToken) { n.Prefix = "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := accountWithWorkspaces(t)
			n := newToken()
			tt.mutate(&n)
			domaintest.ExpectRefusal(t, a.CreateToken(n, accountT0), tt.wantField)
			if len(a.Changes()) != 0 {
				t.Errorf("a refused token recorded %+v", a.Changes())
			}
		})
	}
}

func TestCreateTokenInAnotherAccountsWorkspaceIsNotFound(t *testing.T) {
	a := accountWithWorkspaces(t)
	n := newToken()
	n.WorkspaceID = "ws-of-someone-else"
	if err := a.CreateToken(n, accountT0); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("CreateToken = %v, want domain.ErrNotFound", err)
	}
}

func TestTokensPerWorkspaceAreBounded(t *testing.T) {
	var history []account.Event
	for i := range account.MaxTokensPerWorkspace {
		history = append(history, account.TokenCreated{TokenID: fmt.Sprintf("t-%d", i), WorkspaceID: "ws-1"})
	}
	a := accountWithWorkspaces(t, history...)
	domaintest.ExpectRefusal(t, a.CreateToken(newToken(), accountT0), "workspaceId")

	n := newToken()
	n.WorkspaceID = "ws-2"
	if err := a.CreateToken(n, accountT0); err != nil {
		t.Errorf("another workspace's first token: %v", err)
	}
	a = accountWithWorkspaces(t, append(history, account.TokenRevoked{TokenID: "t-7"})...)
	if err := a.CreateToken(newToken(), accountT0); err != nil {
		t.Errorf("a deleted token frees its place: %v", err)
	}
}

func TestRevokeToken(t *testing.T) {
	created := account.TokenCreated{TokenID: "tok-1", WorkspaceID: "ws-1"}
	a := accountWithWorkspaces(t, created)
	if err := a.RevokeToken("ws-1", "tok-1", accountT0); err != nil {
		t.Fatalf("RevokeToken: %v", err)
	}
	want := []account.Event{account.TokenRevoked{TokenID: "tok-1", At: accountT0.UTC()}}
	if !reflect.DeepEqual(a.Changes(), want) {
		t.Errorf("Changes() = %+v, want %+v", a.Changes(), want)
	}
	if err := a.RevokeToken("ws-1", "tok-1", accountT0); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("a second revocation = %v, want domain.ErrNotFound", err)
	}
	for _, tt := range []struct{ name, workspace, token string }{
		{"unknown token", "ws-1", "tok-2"},
		{"token of another workspace", "ws-2", "tok-1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := accountWithWorkspaces(t, created)
			if err := a.RevokeToken(tt.workspace, tt.token, accountT0); !errors.Is(err, domain.ErrNotFound) {
				t.Errorf("RevokeToken = %v, want domain.ErrNotFound", err)
			}
			if len(a.Changes()) != 0 {
				t.Errorf("recorded %+v", a.Changes())
			}
		})
	}
	a = accountWithWorkspaces(t, created, account.TokenRevoked{TokenID: "tok-1"})
	if err := a.RevokeToken("ws-1", "tok-1", accountT0); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("revoking a token revoked in history = %v, want domain.ErrNotFound", err)
	}
}

func TestEventTypesOfTokens(t *testing.T) {
	if got := (account.TokenCreated{}).EventType(); got != "account.token_created.v1" {
		t.Errorf("TokenCreated = %q", got)
	}
	if got := (account.TokenRevoked{}).EventType(); got != "account.token_revoked.v1" {
		t.Errorf("TokenRevoked = %q", got)
	}
}
