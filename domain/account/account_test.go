package account_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/domaintest"
)

// accountT0 is deliberately not UTC: events must record UTC times.
var accountT0 = time.Date(2025, 4, 2, 9, 30, 0, 0, time.FixedZone("PDT", -7*3600))

func accountRegistration() account.Registration {
	return account.Registration{
		AccountID: "acct-1", Email: "ada@example.com", Name: "Ada",
		PasswordHash: "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA", WorkspaceID: "ws-1",
	}
}

func accountRegistered(t *testing.T) *account.Account {
	t.Helper()
	a, err := account.Register(accountRegistration(), accountT0)
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	return a
}

func TestRegister(t *testing.T) {
	tests := []struct {
		name      string
		email     string
		userName  string
		wantEmail string
		wantName  string
	}{
		{name: "as given", email: "ada@example.com", userName: "Ada", wantEmail: "ada@example.com", wantName: "Ada"},
		{name: "lower-cased", email: "Ada.Lovelace@Example.COM", wantEmail: "ada.lovelace@example.com"},
		{name: "trimmed", email: " \tada@example.com\n", userName: "  Ada  ", wantEmail: "ada@example.com", wantName: "Ada"},
		{name: "200-byte name", email: "ada@example.com", userName: strings.Repeat("a", 200), wantEmail: "ada@example.com", wantName: strings.Repeat("a", 200)},
		{name: "padded 200-byte name", email: "ada@example.com", userName: "  " + strings.Repeat("a", 200) + " ", wantEmail: "ada@example.com", wantName: strings.Repeat("a", 200)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := accountRegistration()
			r.Email, r.Name = tt.email, tt.userName
			a, err := account.Register(r, accountT0)
			if err != nil {
				t.Fatalf("Register: %v", err)
			}
			if a.Email() != tt.wantEmail {
				t.Errorf("Email() = %q, want %q", a.Email(), tt.wantEmail)
			}
			want := []account.Event{account.Registered{
				AccountID: "acct-1", Email: tt.wantEmail, Name: tt.wantName,
				PasswordHash: r.PasswordHash, WorkspaceID: "ws-1", WorkspaceName: "Default",
				At: accountT0.UTC(),
			}}
			if !reflect.DeepEqual(a.Changes(), want) {
				t.Errorf("Changes() =\n%+v\nwant\n%+v", a.Changes(), want)
			}
			if a.Changes()[0].(account.Registered).At.Location() != time.UTC {
				t.Errorf("Registered.At is not UTC")
			}
			if a.Version() != 0 {
				t.Errorf("Version() = %d, want 0", a.Version())
			}
			if a.ID() != "acct-1" || a.PasswordHash() != r.PasswordHash || a.DefaultWorkspaceID() != "ws-1" {
				t.Errorf("ID/PasswordHash/DefaultWorkspaceID = %q/%q/%q", a.ID(), a.PasswordHash(), a.DefaultWorkspaceID())
			}
			if !a.HasWorkspace("ws-1") {
				t.Error("HasWorkspace(default) = false")
			}
			if a.EmailVerified() {
				t.Error("a new account's email must start unverified")
			}
		})
	}
}

func TestNormalizeEmail(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ada@example.com", "ada@example.com"},
		{"ADA@EXAMPLE.COM", "ada@example.com"},
		{"  Ada@Example.com\r\n", "ada@example.com"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := account.NormalizeEmail(tt.in); got != tt.want {
			t.Errorf("NormalizeEmail(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRegisterRejects(t *testing.T) {
	tests := []struct {
		name      string
		mutate    func(*account.Registration)
		wantField string // "" means a plain (non-input) error
	}{
		{name: "empty email", mutate: func(r *account.Registration) { r.Email = "" }, wantField: "email"},
		{name: "blank email", mutate: func(r *account.Registration) { r.Email = "   " }, wantField: "email"},
		{name: "no at", mutate: func(r *account.Registration) { r.Email = "ada.example.com" }, wantField: "email"},
		{name: "no domain dot", mutate: func(r *account.Registration) { r.Email = "ada@localhost" }, wantField: "email"},
		{name: "display name", mutate: func(r *account.Registration) { r.Email = "Ada <ada@example.com>" }, wantField: "email"},
		{name: "two addresses", mutate: func(r *account.Registration) { r.Email = "ada@example.com,bob@example.com" }, wantField: "email"},
		{name: "inner space", mutate: func(r *account.Registration) { r.Email = "ada @example.com" }, wantField: "email"},
		{name: "201-byte name", mutate: func(r *account.Registration) { r.Name = strings.Repeat("a", 201) }, wantField: "name"},
		{name: "no account id", mutate: func(r *account.Registration) { r.AccountID = "" }},
		{name: "no workspace id", mutate: func(r *account.Registration) { r.WorkspaceID = "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := accountRegistration()
			tt.mutate(&r)
			a, err := account.Register(r, accountT0)
			domaintest.ExpectRefusal(t, err, tt.wantField)
			if a != nil {
				t.Error("Register returned an account with its error")
			}
		})
	}
}

func TestValidatePassword(t *testing.T) {
	tests := []struct {
		name string
		pw   string
		ok   bool
	}{
		{name: "empty", pw: ""},
		{name: "11 runes", pw: strings.Repeat("a", 11)},
		{name: "12 runes", pw: strings.Repeat("a", 12), ok: true},
		{name: "11 two-byte runes (22 bytes)", pw: strings.Repeat("é", 11)},
		{name: "12 two-byte runes", pw: strings.Repeat("é", 12), ok: true},
		{name: "11 four-byte runes (44 bytes)", pw: strings.Repeat("🔑", 11)},
		{name: "12 four-byte runes", pw: strings.Repeat("🔑", 12), ok: true},
		{name: "11 with spaces", pw: "  pass   wd"},
		{name: "12 with spaces", pw: " correct hor", ok: true},
		{name: "1024 bytes", pw: strings.Repeat("a", 1024), ok: true},
		{name: "1025 bytes", pw: strings.Repeat("a", 1025)},
		{name: "341 three-byte runes (1023 bytes)", pw: strings.Repeat("€", 341), ok: true},
		{name: "342 three-byte runes (1026 bytes)", pw: strings.Repeat("€", 342)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := account.ValidatePassword(tt.pw)
			if tt.ok {
				if err != nil {
					t.Errorf("ValidatePassword = %v, want nil", err)
				}
				return
			}
			if got := domaintest.InvalidField(t, err); got != "password" {
				t.Errorf("Field = %q, want password", got)
			}
		})
	}
}

func TestCanCreateFormsNeedsVerifiedEmail(t *testing.T) {
	a := accountRegistered(t)
	var fe *domain.ForbiddenError
	if err := a.CanCreateForms(); !errors.As(err, &fe) || fe.Message == "" {
		t.Fatalf("CanCreateForms before verification = %v, want a *domain.ForbiddenError with a message", err)
	}
	a.VerifyEmail(accountT0.Add(time.Hour))
	if err := a.CanCreateForms(); err != nil {
		t.Errorf("CanCreateForms after verification = %v, want nil", err)
	}
}

func TestVerifyEmail(t *testing.T) {
	tests := []struct {
		name       string
		calls      int
		wantEvents int // after Registered
	}{
		{name: "once", calls: 1, wantEvents: 1},
		{name: "twice", calls: 2, wantEvents: 1},
		{name: "five times", calls: 5, wantEvents: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := accountRegistered(t)
			first := accountT0.Add(time.Hour)
			for i := 0; i < tt.calls; i++ {
				a.VerifyEmail(first.Add(time.Duration(i) * time.Minute))
			}
			if !a.EmailVerified() {
				t.Error("EmailVerified() = false")
			}
			got := a.Changes()[1:]
			if len(got) != tt.wantEvents {
				t.Fatalf("recorded %d events after Registered (%+v), want %d", len(got), got, tt.wantEvents)
			}
			want := account.EmailVerified{At: first.UTC()}
			if got[0] != want {
				t.Errorf("event = %+v, want %+v", got[0], want)
			}
			if got[0].EventType() != "account.email_verified.v1" {
				t.Errorf("EventType() = %q", got[0].EventType())
			}
		})
	}
}

func TestVerifyEmailAfterReload(t *testing.T) {
	a := accountRegistered(t)
	a.VerifyEmail(accountT0)
	loaded, err := account.FromHistory(a.Changes())
	if err != nil {
		t.Fatal(err)
	}
	if !loaded.EmailVerified() {
		t.Fatal("reloaded account lost its verification")
	}
	loaded.VerifyEmail(accountT0.Add(time.Hour))
	if len(loaded.Changes()) != 0 {
		t.Errorf("already verified account recorded %+v", loaded.Changes())
	}
}

func TestAddWorkspace(t *testing.T) {
	tests := []struct {
		name      string
		wsName    string
		wantName  string
		wantError bool
	}{
		{name: "plain", wsName: "Clients", wantName: "Clients"},
		{name: "trimmed", wsName: "  Clients\t", wantName: "Clients"},
		{name: "200 bytes", wsName: strings.Repeat("w", 200), wantName: strings.Repeat("w", 200)},
		{name: "empty", wsName: "", wantError: true},
		{name: "blank", wsName: " \n ", wantError: true},
		{name: "201 bytes", wsName: strings.Repeat("w", 201), wantError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := accountRegistered(t)
			at := accountT0.Add(time.Hour)
			err := a.AddWorkspace("ws-2", tt.wsName, at)
			if tt.wantError {
				if got := domaintest.InvalidField(t, err); got != "workspaceName" {
					t.Errorf("Field = %q, want workspaceName", got)
				}
				if len(a.Changes()) != 1 {
					t.Errorf("rejected workspace recorded %+v", a.Changes()[1:])
				}
				if a.HasWorkspace("ws-2") {
					t.Error("HasWorkspace(ws-2) = true after a rejected add")
				}
				return
			}
			if err != nil {
				t.Fatalf("AddWorkspace: %v", err)
			}
			want := account.WorkspaceCreated{WorkspaceID: "ws-2", Name: tt.wantName, At: at.UTC()}
			if len(a.Changes()) != 2 || a.Changes()[1] != want {
				t.Errorf("Changes() = %+v, want Registered then %+v", a.Changes(), want)
			}
			if !a.HasWorkspace("ws-2") || !a.HasWorkspace("ws-1") {
				t.Errorf("HasWorkspace(ws-2)=%v HasWorkspace(ws-1)=%v, want both", a.HasWorkspace("ws-2"), a.HasWorkspace("ws-1"))
			}
			if a.DefaultWorkspaceID() != "ws-1" {
				t.Errorf("DefaultWorkspaceID() = %q, want ws-1", a.DefaultWorkspaceID())
			}
		})
	}
}

func TestHasWorkspace(t *testing.T) {
	a := accountRegistered(t)
	if err := a.AddWorkspace("ws-2", "Clients", accountT0); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id   string
		want bool
	}{
		{"ws-1", true},
		{"ws-2", true},
		{"ws-3", false},
		{"WS-1", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := a.HasWorkspace(tt.id); got != tt.want {
			t.Errorf("HasWorkspace(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestFromHistory(t *testing.T) {
	for _, events := range [][]account.Event{nil, {}} {
		a, err := account.FromHistory(events)
		if !errors.Is(err, domain.ErrNotFound) || a != nil {
			t.Errorf("FromHistory(%v) = %v, %v; want nil, ErrNotFound", events, a, err)
		}
	}

	a := accountRegistered(t)
	a.VerifyEmail(accountT0)
	if err := a.AddWorkspace("ws-2", "Clients", accountT0); err != nil {
		t.Fatal(err)
	}
	loaded, err := account.FromHistory(a.Changes())
	if err != nil {
		t.Fatalf("FromHistory: %v", err)
	}
	if loaded.Version() != 3 || len(loaded.Changes()) != 0 {
		t.Errorf("Version()=%d len(Changes())=%d, want 3 and 0", loaded.Version(), len(loaded.Changes()))
	}
	if loaded.ID() != "acct-1" || loaded.Email() != "ada@example.com" || loaded.DefaultWorkspaceID() != "ws-1" {
		t.Errorf("loaded ID/Email/DefaultWorkspaceID = %q/%q/%q", loaded.ID(), loaded.Email(), loaded.DefaultWorkspaceID())
	}
	if !loaded.EmailVerified() || loaded.CanCreateForms() != nil {
		t.Error("loaded account is not verified")
	}
	if !loaded.HasWorkspace("ws-1") || !loaded.HasWorkspace("ws-2") {
		t.Error("loaded account lost a workspace")
	}
}

func TestEventTypes(t *testing.T) {
	tests := []struct {
		event account.Event
		want  string
	}{
		{account.Registered{}, "account.registered.v1"},
		{account.EmailVerified{}, "account.email_verified.v1"},
		{account.WorkspaceCreated{}, "account.workspace_created.v1"},
		{account.PasswordReset{}, "account.password_reset.v1"},
	}
	for _, tt := range tests {
		if got := tt.event.EventType(); got != tt.want {
			t.Errorf("%T.EventType() = %q, want %q", tt.event, got, tt.want)
		}
	}
}

func TestErrEmailTakenIsForbidden(t *testing.T) {
	var fe *domain.ForbiddenError
	if !errors.As(error(account.ErrEmailTaken), &fe) || fe.Message == "" {
		t.Errorf("ErrEmailTaken = %#v, want a *domain.ForbiddenError with a message", account.ErrEmailTaken)
	}
}
