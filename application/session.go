package application

import "github.com/formd/formd/domain/account"

// Session is an authenticated caller of the control plane: a session from
// POST /agent/auth or a workspace API token.
type Session struct {
	AccountID string
	// CredentialID identifies the credential for the audit trail (a prefix of
	// a session token's hash, a workspace token's id), never the credential.
	CredentialID string
	ActorType    string
	// Access is what the credential may do: everything for a session, one
	// workspace and its scopes for a token. The zero Access may do nothing.
	Access account.Access
}

// Require refuses the caller unless its credential holds scope: every
// control-plane use case names the scope it needs here, first thing.
func (s Session) Require(scope account.Scope) error { return s.Access.Require(scope) }

// ReadsForms reports whether the caller may read forms (forms:read). A
// change made with forms:write alone is answered with an acknowledgement,
// not the record: writing must not be a way to read.
func (s Session) ReadsForms() bool { return s.Require(account.ScopeFormsRead) == nil }
