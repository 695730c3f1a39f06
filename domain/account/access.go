package account

import (
	"fmt"
	"slices"
	"strings"

	"github.com/formd/formd/domain"
)

// Scope is a permission a workspace API token may hold (spec: Authentication,
// rule 3).
type Scope string

// The spec's scopes. Each is independent: forms:write does not include
// forms:read.
const (
	ScopeFormsRead       Scope = "forms:read"
	ScopeFormsWrite      Scope = "forms:write"
	ScopeSubmissionsTest Scope = "submissions:test"
	// ScopeSubmissionsRead lists, reads and exports archived submissions
	// (docs/archive.md).
	ScopeSubmissionsRead Scope = "submissions:read"
	// ScopeSubmissionsDelete erases archived submissions (docs/archive.md).
	ScopeSubmissionsDelete Scope = "submissions:delete"
)

// Scopes lists every scope in its canonical order, the order tokens show
// theirs in.
func Scopes() []Scope {
	return []Scope{ScopeFormsRead, ScopeFormsWrite, ScopeSubmissionsTest, ScopeSubmissionsRead, ScopeSubmissionsDelete}
}

// scopeList names every scope for a message: "a, b, c or d" (conjunction
// "or") or "a, b, c, d" (conjunction "").
func scopeList(conjunction string) string {
	names := make([]string, len(Scopes()))
	for i, s := range Scopes() {
		names[i] = string(s)
	}
	if conjunction == "" {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conjunction + " " + names[len(names)-1]
}

// ParseScopes checks a token's requested scopes: at least one, each a known
// scope. Repeats collapse, and the result is in canonical order, so one set of
// scopes has one stored form.
func ParseScopes(requested []string) ([]Scope, error) {
	if len(requested) == 0 {
		return nil, domain.Invalid("scopes", "scopes must name at least one of %s", scopeList(""))
	}
	for _, s := range requested {
		if !slices.Contains(Scopes(), Scope(s)) {
			return nil, domain.Invalid("scopes", "scopes must be "+scopeList("or")+", not %q", s)
		}
	}
	var out []Scope
	for _, s := range Scopes() {
		if slices.Contains(requested, string(s)) {
			out = append(out, s)
		}
	}
	return out, nil
}

// Access is what a control-plane credential may do. A session (from POST
// /agent/auth) has full access: the spec says its scopes restrict nothing. A
// workspace API token reaches one workspace's forms, and only through routes
// whose scope it holds. The zero Access may do nothing, so a caller that was
// never given one is refused rather than trusted.
type Access struct {
	full      bool
	workspace string
	scopes    []Scope
}

// FullAccess is a session's access: every workspace of the account, every route.
func FullAccess() Access { return Access{full: true} }

// TokenAccess is a workspace API token's access.
func TokenAccess(workspaceID string, scopes []Scope) Access {
	return Access{workspace: workspaceID, scopes: slices.Clone(scopes)}
}

// Require refuses a credential that lacks scope, naming it.
func (a Access) Require(scope Scope) error {
	if a.full || slices.Contains(a.scopes, scope) {
		return nil
	}
	return &domain.PermissionDeniedError{Message: fmt.Sprintf(
		"This workspace API token lacks the %s scope, which this route needs. Use a token with %s, or a session.", scope, scope)}
}

// ErrTokensManageNoTokens refuses a workspace API token on the routes that
// manage tokens: a leaked token must not be able to mint others or outlive
// its own revocation.
var ErrTokensManageNoTokens = &domain.PermissionDeniedError{
	Message: "Workspace API tokens cannot list, create or delete tokens; use a session from POST /agent/auth."}

// ErrTokensSeeNoAccount refuses a workspace API token on the account's own
// routes (its plan, usage and audit trail): the account is above any one
// workspace, and a token reaches one workspace only.
var ErrTokensSeeNoAccount = &domain.PermissionDeniedError{
	Message: "Workspace API tokens cannot read the account (plan, usage, audit trail); use a session from POST /agent/auth."}

// RequireSession refuses anything but a session with refusal.
func (a Access) RequireSession(refusal error) error {
	if a.full {
		return nil
	}
	return refusal
}

// RequireFull refuses anything but a session.
func (a Access) RequireFull() error {
	if a.full {
		return nil
	}
	return ErrTokensManageNoTokens
}

// Sees reports whether the credential reaches things of workspaceID: a
// session reaches every workspace of its account (the caller checks the
// account), a token only its own.
func (a Access) Sees(workspaceID string) bool {
	return a.full || (a.workspace != "" && a.workspace == workspaceID)
}

// Workspace is the one workspace a token is bound to; bound is false only
// for full access, which may act in any workspace of its account.
func (a Access) Workspace() (id string, bound bool) {
	return a.workspace, !a.full
}
