package application

import (
	"context"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
)

// tokenWorld is a read model and token store of one account (acct-1) with
// workspaces ws-1 and ws-2, a form in each, and the tokens it is given.
type tokenWorld struct {
	ReadModel
	tokens  map[string]TokenRecord // by hex hash
	touched []string               // MarkTokenUsed calls: id@staleBefore
	now     time.Time
}

func newTokenWorld() *tokenWorld {
	return &tokenWorld{tokens: map[string]TokenRecord{}, now: fixedClock{}.Now()}
}

func (w *tokenWorld) ActiveTokenByHash(_ context.Context, hash []byte, _ time.Time) (TokenRecord, error) {
	t, ok := w.tokens[hex.EncodeToString(hash)]
	if !ok {
		return TokenRecord{}, domain.ErrNotFound
	}
	return t, nil
}

func (w *tokenWorld) MarkTokenUsed(_ context.Context, id string, at, staleBefore time.Time) error {
	w.touched = append(w.touched, id+"@"+staleBefore.Format(time.RFC3339))
	return nil
}

func (w *tokenWorld) TokenByID(_ context.Context, id string) (TokenRecord, error) {
	for _, t := range w.tokens {
		if t.ID == id {
			return t, nil
		}
	}
	return TokenRecord{ID: id}, nil
}

func (w *tokenWorld) TokensOfWorkspace(_ context.Context, ws string) ([]TokenRecord, error) {
	return []TokenRecord{{ID: "listed-of-" + ws}}, nil
}

func (w *tokenWorld) SessionByTokenHash(context.Context, []byte, time.Time) (AccountRecord, error) {
	return AccountRecord{ID: "acct-1"}, nil
}

func (w *tokenWorld) WorkspacesByAccount(_ context.Context, id string) ([]WorkspaceRecord, error) {
	if id != "acct-1" {
		return nil, nil
	}
	return []WorkspaceRecord{{ID: "ws-1", AccountID: "acct-1", Name: "Default"}, {ID: "ws-2", AccountID: "acct-1", Name: "Side"}}, nil
}

func (w *tokenWorld) FormsByAccount(context.Context, string) ([]FormRecord, error) {
	return []FormRecord{{ID: "form-1", AccountID: "acct-1", WorkspaceID: "ws-1"}, {ID: "form-2", AccountID: "acct-1", WorkspaceID: "ws-2"}}, nil
}

func (w *tokenWorld) FormByID(_ context.Context, id string) (FormRecord, error) {
	forms, _ := w.FormsByAccount(context.Background(), "acct-1")
	for _, f := range forms {
		if f.ID == id {
			return f, nil
		}
	}
	return FormRecord{}, domain.ErrNotFound
}

func (w *tokenWorld) StreamHistory(context.Context, string) ([]HistoryEntry, error) { return nil, nil }

func tokenCaller(ws string, scopes ...account.Scope) Session {
	return Session{AccountID: "acct-1", CredentialID: "tok-1", ActorType: ActorToken, Access: account.TokenAccess(ws, scopes)}
}

var sessionCaller = Session{AccountID: "acct-1", CredentialID: "cred", ActorType: ActorSession, Access: account.FullAccess()}

func TestAuthenticateTellsTokensFromSessions(t *testing.T) {
	w := newTokenWorld()
	const secret = "fdw_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"
	w.tokens[hexHash(secret)] = TokenRecord{ID: "tok-1", AccountID: "acct-1", WorkspaceID: "ws-1",
		Scopes: []account.Scope{account.ScopeFormsRead}}
	h := NewAuthenticateHandler(w, w, fixedClock{})

	s, err := h.Handle(context.Background(), Authenticate{Credential: secret})
	if err != nil {
		t.Fatal(err)
	}
	if s.AccountID != "acct-1" || s.ActorType != ActorToken || s.CredentialID != "tok-1" {
		t.Errorf("token session = %+v, want acct-1 acting as token tok-1", s)
	}
	if s.Require(account.ScopeFormsRead) != nil || s.Require(account.ScopeFormsWrite) == nil || !s.Access.Sees("ws-1") || s.Access.Sees("ws-2") {
		t.Errorf("token access = %+v, want forms:read on ws-1 only", s.Access)
	}

	if _, err := h.Handle(context.Background(), Authenticate{Credential: secret, Cookie: true}); !errors.Is(err, ErrUnauthenticated) {
		t.Errorf("a token in the session cookie = %v, want ErrUnauthenticated", err)
	}
	if _, err := h.Handle(context.Background(), Authenticate{Credential: "fdw_unknown"}); !errors.Is(err, ErrUnauthenticated) {
		t.Errorf("an unknown token = %v, want ErrUnauthenticated", err)
	}

	s, err = h.Handle(context.Background(), Authenticate{Credential: "fds_a-session"})
	if err != nil {
		t.Fatal(err)
	}
	if s.ActorType != ActorSession || s.Require(account.ScopeSubmissionsTest) != nil || !s.Access.Sees("ws-2") {
		t.Errorf("session = %+v, want full access", s)
	}
}

func TestAuthenticateNotesATokensUseAtMostOnceAMinute(t *testing.T) {
	now := fixedClock{}.Now()
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	tests := []struct {
		name     string
		lastUsed *time.Time
		noted    bool
	}{
		{name: "never used", lastUsed: nil, noted: true},
		{name: "used a minute ago", lastUsed: at(-time.Minute), noted: true},
		{name: "used an hour ago", lastUsed: at(-time.Hour), noted: true},
		{name: "used 59 s ago", lastUsed: at(-59 * time.Second), noted: false},
		{name: "used just now", lastUsed: at(0), noted: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newTokenWorld()
			w.tokens[hexHash("fdw_x")] = TokenRecord{ID: "tok-1", AccountID: "acct-1", WorkspaceID: "ws-1", LastUsedAt: tt.lastUsed}
			if _, err := NewAuthenticateHandler(w, w, fixedClock{}).Handle(context.Background(), Authenticate{Credential: "fdw_x"}); err != nil {
				t.Fatal(err)
			}
			var want []string
			if tt.noted {
				want = []string{"tok-1@" + now.Add(-time.Minute).Format(time.RFC3339)}
			}
			if !reflect.DeepEqual(w.touched, want) {
				t.Errorf("MarkTokenUsed calls = %v, want %v", w.touched, want)
			}
		})
	}
}

func TestCreateWorkspaceToken(t *testing.T) {
	tx := accountStore(t, account.Registered{AccountID: "acct-1", Email: "ada@example.com", WorkspaceID: "ws-1"})
	w := newTokenWorld()
	h := NewCreateWorkspaceTokenHandler(tx, w, fixedIDs{"tok-9"}, fixedClock{})
	out, err := h.Handle(context.Background(), CreateWorkspaceToken{Caller: sessionCaller, RequestID: "req-1",
		WorkspaceID: "ws-1", Name: "CI", Scopes: []string{"forms:write"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.Secret, "fdw_") || len(out.Secret) != len("fdw_")+43 {
		t.Errorf("secret %q, want fdw_ and base64url of 32 bytes", out.Secret)
	}
	want := []account.Event{account.TokenCreated{TokenID: "tok-9", WorkspaceID: "ws-1", Name: "CI", Prefix: out.Secret[:12],
		TokenHash: hexHash(out.Secret), Scopes: []account.Scope{account.ScopeFormsWrite}, At: fixedClock{}.Now()}}
	if !reflect.DeepEqual(savedAccountEvents(tx), want) {
		t.Errorf("saved %+v\nwant %+v", savedAccountEvents(tx), want)
	}
	if tx.Metadata().Actor != (Actor{Type: ActorSession, ID: "cred"}) || tx.Metadata().RequestID != "req-1" {
		t.Errorf("metadata %+v, want the session as actor", tx.Metadata())
	}
	if out.Token.ID != "tok-9" {
		t.Errorf("answered token %+v", out.Token)
	}
}

type fixedIDs struct{ id string }

func (f fixedIDs) New() string { return f.id }

// TestTokensManageNoTokens: a token, whatever its scopes, may not list,
// create or delete tokens; nothing is read or written for it.
func TestTokensManageNoTokens(t *testing.T) {
	caller := tokenCaller("ws-1", account.Scopes()...)
	ctx := context.Background()
	var nothing struct {
		Transactor
		ReadModel
		WorkspaceTokens
	}
	for name, call := range map[string]func() error{
		"create": func() error {
			_, err := NewCreateWorkspaceTokenHandler(nothing, nothing, fixedIDs{"x"}, fixedClock{}).Handle(ctx,
				CreateWorkspaceToken{Caller: caller, WorkspaceID: "ws-1", Name: "n", Scopes: []string{"forms:read"}})
			return err
		},
		"list": func() error {
			_, err := NewListWorkspaceTokensHandler(nothing, nothing).Handle(ctx, ListWorkspaceTokens{Caller: caller, WorkspaceID: "ws-1"})
			return err
		},
		"revoke": func() error {
			return NewRevokeWorkspaceTokenHandler(nothing, fixedClock{}).Handle(ctx, RevokeWorkspaceToken{Caller: caller, WorkspaceID: "ws-1", TokenID: "t"})
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := call(); !errors.Is(err, account.ErrTokensManageNoTokens) {
				t.Errorf("= %v, want account.ErrTokensManageNoTokens", err)
			}
		})
	}
}

func TestListWorkspaceTokensOfAnotherAccountsWorkspaceIsNotFound(t *testing.T) {
	w := newTokenWorld()
	h := NewListWorkspaceTokensHandler(w, w)
	if _, err := h.Handle(context.Background(), ListWorkspaceTokens{Caller: sessionCaller, WorkspaceID: "ws-9"}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("= %v, want domain.ErrNotFound", err)
	}
	got, err := h.Handle(context.Background(), ListWorkspaceTokens{Caller: sessionCaller, WorkspaceID: "ws-2"})
	if err != nil || len(got) != 1 || got[0].ID != "listed-of-ws-2" {
		t.Errorf("= %+v, %v", got, err)
	}
}

func TestATokenSeesItsOwnWorkspaceOnly(t *testing.T) {
	w := newTokenWorld()
	ctx := context.Background()
	reader := tokenCaller("ws-1", account.ScopeFormsRead)

	workspaces, err := NewListWorkspacesHandler(w).Handle(ctx, ListWorkspaces{Caller: reader})
	if err != nil || len(workspaces) != 1 || workspaces[0].ID != "ws-1" {
		t.Errorf("token's workspaces = %+v, %v; want ws-1 only", workspaces, err)
	}
	workspaces, err = NewListWorkspacesHandler(w).Handle(ctx, ListWorkspaces{Caller: sessionCaller})
	if err != nil || len(workspaces) != 2 {
		t.Errorf("session's workspaces = %+v, %v; want both", workspaces, err)
	}

	forms, err := NewListFormsHandler(w).Handle(ctx, ListForms{Caller: reader})
	if err != nil || len(forms) != 1 || forms[0].ID != "form-1" {
		t.Errorf("token's forms = %+v, %v; want form-1 only", forms, err)
	}
	if _, err := NewFormHistoryHandler(w, noActorNames{}).Handle(ctx, FormHistory{Caller: reader, FormID: "form-2"}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("another workspace's form = %v, want domain.ErrNotFound", err)
	}
	if _, err := NewFormHistoryHandler(w, noActorNames{}).Handle(ctx, FormHistory{Caller: reader, FormID: "form-1"}); err != nil {
		t.Errorf("its own workspace's form = %v", err)
	}
	log := newLogWorld()
	log.records["d-ws2"] = DeliveryRecord{ID: "d-ws2", AccountID: "acct-1", WorkspaceID: "ws-2", FormID: "form-2", Kind: "email"}
	if _, err := NewDeliveryDetailsHandler(w, log).Handle(ctx, DeliveryDetails{Caller: reader, DeliveryID: "d-ws2"}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("another workspace's delivery = %v, want domain.ErrNotFound", err)
	}
}

func TestATokenCreatesFormsInItsOwnWorkspaceOnly(t *testing.T) {
	history := []account.Event{
		account.Registered{AccountID: "acct-1", Email: "ada@example.com", WorkspaceID: "ws-1"},
		account.EmailVerified{},
		account.WorkspaceCreated{WorkspaceID: "ws-2", Name: "Side"},
	}
	writer := tokenCaller("ws-1", account.ScopeFormsWrite)
	for name, cmd := range map[string]CreateForm{
		"another workspace": {Caller: writer, WorkspaceID: "ws-2"},
		"a new workspace":   {Caller: writer, WorkspaceName: "Mine"},
	} {
		t.Run(name, func(t *testing.T) {
			tx := accountStore(t, history...)
			h := NewCreateFormHandler(tx, newTokenWorld(), noEntitlements{}, fixedIDs{"f"}, fixedClock{}, prefixTokens{})
			var denied *domain.PermissionDeniedError
			if _, err := h.Handle(context.Background(), cmd); !errors.As(err, &denied) {
				t.Errorf("= %v, want a *domain.PermissionDeniedError", err)
			}
			if len(savedAccountEvents(tx)) != 0 {
				t.Errorf("saved %+v", savedAccountEvents(tx))
			}
		})
	}
}

// TestEveryControlPlaneUseCaseNeedsItsScope calls each use case with a
// token that holds every scope but the one it needs: it is refused, naming
// that scope, before it reads or writes anything (every dependency here is
// empty and would panic).
func TestEveryControlPlaneUseCaseNeedsItsScope(t *testing.T) {
	var nothing struct {
		Transactor
		ReadModel
		Entitlements
		IDs
		Clock
		LinkTokens
		Sealer
		IntegrationServices
		DeliveryLog
		IntegrationCodes
		TelegramBot
		IntegrationTestLimits
	}
	ctx := context.Background()
	without := func(scope account.Scope) Session {
		var others []account.Scope
		for _, s := range account.Scopes() {
			if s != scope {
				others = append(others, s)
			}
		}
		return tokenCaller("ws-1", others...)
	}
	read, write := account.ScopeFormsRead, account.ScopeFormsWrite
	cases := []struct {
		name  string
		scope account.Scope
		call  func(Session) error
	}{
		{"ListWorkspaces", read, func(c Session) error {
			_, err := NewListWorkspacesHandler(nothing).Handle(ctx, ListWorkspaces{Caller: c})
			return err
		}},
		{"ListForms", read, func(c Session) error {
			_, err := NewListFormsHandler(nothing).Handle(ctx, ListForms{Caller: c})
			return err
		}},
		{"CreateForm", write, func(c Session) error {
			_, err := NewCreateFormHandler(nothing, nothing, nothing, nothing, nothing, nothing).Handle(ctx, CreateForm{Caller: c})
			return err
		}},
		{"UpdateForm", write, func(c Session) error {
			_, err := NewUpdateFormHandler(nothing, nothing, nothing, nothing, nothing, nothing, nothing).Handle(ctx, UpdateForm{Caller: c, FormID: "form-1"})
			return err
		}},
		{"FormHistory", read, func(c Session) error {
			_, err := NewFormHistoryHandler(nothing, noActorNames{}).Handle(ctx, FormHistory{Caller: c, FormID: "form-1"})
			return err
		}},
		{"RecipientVerification", read, func(c Session) error {
			_, err := NewRecipientVerificationHandler(nothing).Handle(ctx, RecipientVerification{Caller: c, FormID: "form-1"})
			return err
		}},
		{"ResendRecipientVerification", write, func(c Session) error {
			_, err := NewResendRecipientVerificationHandler(nothing, nothing, nothing, nothing, nothing).Handle(ctx,
				ResendRecipientVerification{Caller: c, FormID: "form-1"})
			return err
		}},
		{"ListIntegrations", read, func(c Session) error {
			_, err := NewListIntegrationsHandler(nothing).Handle(ctx, ListIntegrations{Caller: c, FormID: "form-1"})
			return err
		}},
		{"ConfigureIntegration", write, func(c Session) error {
			_, err := NewConfigureIntegrationHandler(nothing, nothing, nothing, nothing, nothing, nothing, nothing, nothing, &SheetProofs{}).Handle(ctx,
				ConfigureIntegration{Caller: c, FormID: "form-1"})
			return err
		}},
		{"RotateWebhookSecret", write, func(c Session) error {
			_, err := NewRotateWebhookSecretHandler(nothing, nothing, nothing, nothing, nothing).Handle(ctx,
				RotateWebhookSecret{Caller: c, FormID: "form-1"})
			return err
		}},
		{"TestIntegration", write, func(c Session) error {
			_, err := NewTestIntegrationHandler(nothing, nothing, nothing, nothing, nothing, nothing).Handle(ctx, TestIntegration{Caller: c, FormID: "form-1"})
			return err
		}},
		{"ListDeliveries", read, func(c Session) error {
			_, err := NewListDeliveriesHandler(nothing, nothing).Handle(ctx, ListDeliveries{Caller: c, FormID: "form-1"})
			return err
		}},
		{"DeliveryDetails", read, func(c Session) error {
			_, err := NewDeliveryDetailsHandler(nothing, nothing).Handle(ctx, DeliveryDetails{Caller: c, DeliveryID: "d"})
			return err
		}},
		{"RetryDelivery", write, func(c Session) error {
			_, err := NewRetryDeliveryHandler(nothing, nothing, 0).Handle(ctx, RetryDelivery{Caller: c, DeliveryID: "d"})
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("used a dependency before checking the %s scope: %v", tc.scope, p)
				}
			}()
			var denied *domain.PermissionDeniedError
			if err := tc.call(without(tc.scope)); !errors.As(err, &denied) || !strings.Contains(denied.Message, string(tc.scope)) {
				t.Errorf("without %s: %v, want a *domain.PermissionDeniedError naming it", tc.scope, err)
			}
			if err := tc.call(Session{AccountID: "acct-1"}); !errors.As(err, &denied) {
				t.Errorf("with no access at all: %v, want a *domain.PermissionDeniedError", err)
			}
		})
	}
}
