// Package account is the Account aggregate: who owns forms, their
// workspaces, whether their email is verified, which paid or manual features
// an operator granted it, and its workspace API tokens. Sessions are
// credentials kept beside it, not events; tokens are events, because their
// creation and deletion belong in the audit trail.
package account

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/formd/formd/domain"
)

// Event is something that happened to an account.
type Event interface{ EventType() string }

// Event type names as stored.
const (
	RegisteredType       = "account.registered.v1"
	EmailVerifiedType    = "account.email_verified.v1"
	WorkspaceCreatedType = "account.workspace_created.v1"
	FeatureGrantedType   = "account.feature_granted.v1"
	PasswordResetType    = "account.password_reset.v1"
)

// MinPasswordLength is the spec's registration password minimum.
const MinPasswordLength = 12

// Registered records a new user_claimed account and its default workspace.
// PasswordHash is an Argon2id PHC string, or empty when no password was set.
type Registered struct {
	AccountID     string
	Email         string
	Name          string
	PasswordHash  string
	WorkspaceID   string
	WorkspaceName string
	At            time.Time
}

// EventType implements Event.
func (Registered) EventType() string { return RegisteredType }

// EmailVerified records that the account's email address was confirmed.
type EmailVerified struct {
	At time.Time
}

// EventType implements Event.
func (EmailVerified) EventType() string { return EmailVerifiedType }

// WorkspaceCreated records a further workspace of the account.
type WorkspaceCreated struct {
	WorkspaceID string
	Name        string
	At          time.Time
}

// EventType implements Event.
func (WorkspaceCreated) EventType() string { return WorkspaceCreatedType }

// FeatureGranted records that an operator granted the account a paid or
// manual feature (`formd grant`).
type FeatureGranted struct {
	Feature string
	At      time.Time
}

// EventType implements Event.
func (FeatureGranted) EventType() string { return FeatureGrantedType }

// PasswordReset records that the owner of the account's mailbox set a new
// password through a password reset link. PasswordHash is an Argon2id PHC
// string, as in Registered.
type PasswordReset struct {
	PasswordHash string
	At           time.Time
}

// EventType implements Event.
func (PasswordReset) EventType() string { return PasswordResetType }

// Account is the event-sourced account aggregate.
type Account struct {
	id           string
	email        string
	name         string
	passwordHash string
	// passwordResetAt is when a reset link last set the password.
	passwordResetAt time.Time
	emailVerified   bool
	workspaces      map[string]string
	defaultWS       string
	features        map[string]bool
	plan            Plan
	// tokens are the workspace API tokens not deleted, by id.
	tokens map[string]tokenState

	stream domain.Stream[Event]
}

// Registration is what a user_claimed registration carries.
type Registration struct {
	AccountID, Email, Name, PasswordHash string
	WorkspaceID                          string
}

// ErrPasswordTooShort and ErrPasswordTooLong are ValidatePassword's
// refusals; a page can tell them apart to say them in its visitor's
// language.
var (
	ErrPasswordTooShort = &domain.InvalidInputError{Field: "password", Message: fmt.Sprintf("password must be at least %d characters", MinPasswordLength)}
	ErrPasswordTooLong  = &domain.InvalidInputError{Field: "password", Message: "password must be at most 1024 bytes"}
)

// ValidatePassword checks a registration password against the spec's minimum.
func ValidatePassword(pw string) error {
	if len([]rune(pw)) < MinPasswordLength {
		return ErrPasswordTooShort
	}
	if len(pw) > 1024 {
		return ErrPasswordTooLong
	}
	return nil
}

// NormalizeEmail trims an email and lower-cases it, so one mailbox has one account.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// Register records a new account with a default workspace.
func Register(r Registration, now time.Time) (*Account, error) {
	email := NormalizeEmail(r.Email)
	if !domain.IsEmailAddress(email) {
		return nil, domain.Invalid("email", "email must be a valid email address")
	}
	name := strings.TrimSpace(r.Name)
	if len(name) > 200 {
		return nil, domain.Invalid("name", "name must be at most 200 characters")
	}
	if r.AccountID == "" || r.WorkspaceID == "" {
		return nil, errors.New("account: ids are required")
	}
	a := &Account{}
	a.record(Registered{
		AccountID: r.AccountID, Email: email, Name: name, PasswordHash: r.PasswordHash,
		WorkspaceID: r.WorkspaceID, WorkspaceName: "Default", At: now.UTC(),
	})
	return a, nil
}

// VerifyEmail marks the email verified; doing it twice changes nothing.
func (a *Account) VerifyEmail(now time.Time) {
	if !a.emailVerified {
		a.record(EmailVerified{At: now.UTC()})
	}
}

// ResetPassword replaces the account's password with passwordHash, for the
// owner of its mailbox (who followed a password reset link sent there). That
// proves the address as a verification link does, so the email counts as
// verified too: an account someone else registered under the address
// becomes its owner's. Every workspace API token is deleted with it, since
// whoever held the account before may have made them. Ending the account's
// sessions is the caller's part: sessions are credentials kept beside the
// account, not events.
func (a *Account) ResetPassword(passwordHash string, now time.Time) error {
	if passwordHash == "" {
		return errors.New("account: a password reset needs the new password's hash")
	}
	a.record(PasswordReset{PasswordHash: passwordHash, At: now.UTC()})
	a.VerifyEmail(now)
	for _, id := range slices.Sorted(maps.Keys(a.tokens)) {
		a.record(TokenRevoked{TokenID: id, At: now.UTC()})
	}
	return nil
}

// PasswordResetAt is when a password reset link last set the password
// (zero: never).
func (a *Account) PasswordResetAt() time.Time { return a.passwordResetAt }

// AddWorkspace records a further workspace.
func (a *Account) AddWorkspace(id, name string, now time.Time) error {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return domain.Invalid("workspaceName", "workspaceName must be 1 to 200 characters")
	}
	a.record(WorkspaceCreated{WorkspaceID: id, Name: name, At: now.UTC()})
	return nil
}

// GrantFeature records an operator's grant of a paid or manual feature (one
// of Features); granting a feature the account holds changes nothing.
func (a *Account) GrantFeature(feature string, now time.Time) error {
	feature = strings.TrimSpace(feature)
	if err := checkFeature(feature); err != nil {
		return err
	}
	if !a.features[feature] {
		a.record(FeatureGranted{Feature: feature, At: now.UTC()})
	}
	return nil
}

// HasFeature reports whether a grant of feature was recorded on the account.
// Grants made before grants were events live only in the entitlements read
// model, which is what submissions consult.
func (a *Account) HasFeature(feature string) bool { return a.features[feature] }

// CanCreateForms says whether the account may create forms yet, and why not.
func (a *Account) CanCreateForms() error {
	if !a.emailVerified {
		return &domain.ForbiddenError{Message: "Account email is not verified. Follow the link in the verification email sent at registration before creating a form."}
	}
	return nil
}

// HasWorkspace reports whether id is one of the account's workspaces.
func (a *Account) HasWorkspace(id string) bool { _, ok := a.workspaces[id]; return ok }

func (a *Account) record(e Event) { a.stream.Record(a.apply, e) }

func (a *Account) apply(e Event) {
	switch e := e.(type) {
	case Registered:
		a.id, a.email, a.name, a.passwordHash = e.AccountID, e.Email, e.Name, e.PasswordHash
		a.workspaces = map[string]string{e.WorkspaceID: e.WorkspaceName}
		a.defaultWS = e.WorkspaceID
	case EmailVerified:
		a.emailVerified = true
	case WorkspaceCreated:
		a.workspaces[e.WorkspaceID] = e.Name
	case PasswordReset:
		a.passwordHash = e.PasswordHash
		a.passwordResetAt = e.At
	case FeatureGranted:
		if a.features == nil {
			a.features = map[string]bool{}
		}
		a.features[e.Feature] = true
	case FeatureRevoked:
		delete(a.features, e.Feature)
	case PlanChanged:
		a.plan = e.Plan
	case TokenCreated:
		if a.tokens == nil {
			a.tokens = map[string]tokenState{}
		}
		a.tokens[e.TokenID] = tokenState{workspaceID: e.WorkspaceID}
	case TokenRevoked:
		delete(a.tokens, e.TokenID)
	}
}

// FromHistory rebuilds an account from its events without checking rules.
func FromHistory(events []Event) (*Account, error) {
	a := &Account{}
	if err := a.stream.Load(a.apply, events); err != nil {
		return nil, err
	}
	return a, nil
}

// Changes are the events recorded since load.
func (a *Account) Changes() []Event { return a.stream.Changes() }

// Version is the number of events the account had when loaded.
func (a *Account) Version() int { return a.stream.Version() }

// ID is the account id.
func (a *Account) ID() string { return a.id }

// Email is the account's normalized email.
func (a *Account) Email() string { return a.email }

// PasswordHash is the stored Argon2id hash, or empty.
func (a *Account) PasswordHash() string { return a.passwordHash }

// EmailVerified reports whether the account email is verified.
func (a *Account) EmailVerified() bool { return a.emailVerified }

// DefaultWorkspaceID is the workspace created at registration.
func (a *Account) DefaultWorkspaceID() string { return a.defaultWS }

// ErrEmailTaken means an account already exists for the email. Registration
// never hands that account out without its password.
var ErrEmailTaken = &domain.ForbiddenError{Message: "An account already exists for this email. Send its password with the request to get a new session."}
