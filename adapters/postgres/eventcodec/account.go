package eventcodec

import (
	"time"

	"github.com/formd/formd/domain/account"
)

func init() {
	Register(func(e account.Registered) accountRegisteredV1 {
		return accountRegisteredV1{AccountID: e.AccountID, Email: e.Email, Name: e.Name, PasswordHash: e.PasswordHash,
			WorkspaceID: e.WorkspaceID, WorkspaceName: e.WorkspaceName, At: e.At}
	}, func(s accountRegisteredV1) account.Registered {
		return account.Registered{AccountID: s.AccountID, Email: s.Email, Name: s.Name, PasswordHash: s.PasswordHash,
			WorkspaceID: s.WorkspaceID, WorkspaceName: s.WorkspaceName, At: s.At}
	})
	Register(func(e account.EmailVerified) atV1 { return atV1{At: e.At} },
		func(s atV1) account.EmailVerified { return account.EmailVerified{At: s.At} })
	Register(func(e account.WorkspaceCreated) accountWorkspaceCreatedV1 {
		return accountWorkspaceCreatedV1{WorkspaceID: e.WorkspaceID, Name: e.Name, At: e.At}
	}, func(s accountWorkspaceCreatedV1) account.WorkspaceCreated {
		return account.WorkspaceCreated{WorkspaceID: s.WorkspaceID, Name: s.Name, At: s.At}
	})
	Register(func(e account.FeatureGranted) accountFeatureGrantedV1 {
		return accountFeatureGrantedV1{Feature: e.Feature, At: e.At}
	}, func(s accountFeatureGrantedV1) account.FeatureGranted {
		return account.FeatureGranted{Feature: s.Feature, At: s.At}
	})
	Register(func(e account.PasswordReset) accountPasswordResetV1 {
		return accountPasswordResetV1{PasswordHash: e.PasswordHash, At: e.At}
	}, func(s accountPasswordResetV1) account.PasswordReset {
		return account.PasswordReset{PasswordHash: s.PasswordHash, At: s.At}
	})
	Register(func(e account.PlanChanged) accountPlanChangedV1 {
		return accountPlanChangedV1{Plan: string(e.Plan), Previous: string(e.Previous), At: e.At}
	}, func(s accountPlanChangedV1) account.PlanChanged {
		return account.PlanChanged{Plan: account.Plan(s.Plan), Previous: account.Plan(s.Previous), At: s.At}
	})
	Register(func(e account.FeatureRevoked) accountFeatureRevokedV1 {
		return accountFeatureRevokedV1{Feature: e.Feature, At: e.At}
	}, func(s accountFeatureRevokedV1) account.FeatureRevoked {
		return account.FeatureRevoked{Feature: s.Feature, At: s.At}
	})
	Register(func(e account.TokenCreated) accountTokenCreatedV1 {
		scopes := make([]string, len(e.Scopes))
		for i, sc := range e.Scopes {
			scopes[i] = string(sc)
		}
		return accountTokenCreatedV1{TokenID: e.TokenID, WorkspaceID: e.WorkspaceID, Name: e.Name, Prefix: e.Prefix,
			TokenHash: e.TokenHash, Scopes: scopes, ExpiresAt: e.ExpiresAt, At: e.At}
	}, func(s accountTokenCreatedV1) account.TokenCreated {
		scopes := make([]account.Scope, len(s.Scopes))
		for i, sc := range s.Scopes {
			scopes[i] = account.Scope(sc)
		}
		return account.TokenCreated{TokenID: s.TokenID, WorkspaceID: s.WorkspaceID, Name: s.Name, Prefix: s.Prefix,
			TokenHash: s.TokenHash, Scopes: scopes, ExpiresAt: s.ExpiresAt, At: s.At}
	})
	Register(func(e account.TokenRevoked) accountTokenRevokedV1 {
		return accountTokenRevokedV1{TokenID: e.TokenID, At: e.At}
	}, func(s accountTokenRevokedV1) account.TokenRevoked {
		return account.TokenRevoked{TokenID: s.TokenID, At: s.At}
	})
}

// atV1 is the stored shape of events that carry only their time
// (account.email_verified.v1, verification.completed.v1,
// submission.redacted.v1). Each keeps its own version: when one of them
// grows a field, it gets its own struct.
type atV1 struct {
	At time.Time `json:"at"`
}

// accountRegisteredV1 is account.registered.v1 as stored.
type accountRegisteredV1 struct {
	AccountID     string    `json:"accountId"`
	Email         string    `json:"email"`
	Name          string    `json:"name,omitempty"`
	PasswordHash  string    `json:"passwordHash,omitempty"`
	WorkspaceID   string    `json:"workspaceId"`
	WorkspaceName string    `json:"workspaceName"`
	At            time.Time `json:"at"`
}

// accountWorkspaceCreatedV1 is account.workspace_created.v1 as stored.
type accountWorkspaceCreatedV1 struct {
	WorkspaceID string    `json:"workspaceId"`
	Name        string    `json:"name"`
	At          time.Time `json:"at"`
}

// accountFeatureGrantedV1 is account.feature_granted.v1 as stored.
type accountFeatureGrantedV1 struct {
	Feature string    `json:"feature"`
	At      time.Time `json:"at"`
}

// accountPasswordResetV1 is account.password_reset.v1 as stored. The hash is
// kept in the event, as in account.registered.v1: the account's password is
// rebuilt from its stream.
type accountPasswordResetV1 struct {
	PasswordHash string    `json:"passwordHash"`
	At           time.Time `json:"at"`
}

// accountPlanChangedV1 is account.plan_changed.v1 as stored: the plan set and
// the one it replaced, by name.
type accountPlanChangedV1 struct {
	Plan     string    `json:"plan"`
	Previous string    `json:"previous"`
	At       time.Time `json:"at"`
}

// accountFeatureRevokedV1 is account.feature_revoked.v1 as stored.
type accountFeatureRevokedV1 struct {
	Feature string    `json:"feature"`
	At      time.Time `json:"at"`
}

// accountTokenCreatedV1 is account.token_created.v1 as stored: a workspace
// API token's hex SHA-256, never the token (like a form's access key hash in
// form.created.v1), so the tokens read model can be rebuilt from events.
// ExpiresAt is absent for a token that never expires.
type accountTokenCreatedV1 struct {
	TokenID     string     `json:"tokenId"`
	WorkspaceID string     `json:"workspaceId"`
	Name        string     `json:"name"`
	Prefix      string     `json:"prefix"`
	TokenHash   string     `json:"tokenHash"`
	Scopes      []string   `json:"scopes"`
	ExpiresAt   *time.Time `json:"expiresAt,omitempty"`
	At          time.Time  `json:"at"`
}

// accountTokenRevokedV1 is account.token_revoked.v1 as stored.
type accountTokenRevokedV1 struct {
	TokenID string    `json:"tokenId"`
	At      time.Time `json:"at"`
}
