// Package application holds formd's use cases: one command or query per file.
// It declares the interfaces (ports) it needs; adapters implement them and
// cmd/formd binds them with wire.
package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// Actor is who caused a change: an account acting through a session, an
// agent session, a verification link, or the system itself.
type Actor struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// Actor types recorded in event metadata.
const (
	ActorSession = "session"
	ActorAgent   = "agent"
	ActorLink    = "verification_link"
	ActorSystem  = "system"
)

// Metadata travels with every stored event: the actor, the HTTP request that
// caused it and the chain of causes.
type Metadata struct {
	Actor         Actor  `json:"actor"`
	AccountID     string `json:"accountId,omitempty"`
	RequestID     string `json:"requestId,omitempty"`
	CausationID   string `json:"causationId,omitempty"`
	CorrelationID string `json:"correlationId,omitempty"`
}

// Transactor runs fn in one database transaction: every aggregate saved in it
// is appended, projected and published together or not at all. When a stream
// changed concurrently, fn is run again on fresh state.
type Transactor interface {
	InTx(ctx context.Context, md Metadata, fn func(tx Tx) error) error
}

// Tx is the unit of work of one transaction.
type Tx interface {
	LoadForm(ctx context.Context, id string) (*form.Form, error)
	SaveForm(ctx context.Context, f *form.Form) error
	LoadAccount(ctx context.Context, id string) (*account.Account, error)
	SaveAccount(ctx context.Context, a *account.Account) error
	LoadVerification(ctx context.Context, id string) (*verification.Verification, error)
	SaveVerification(ctx context.Context, v *verification.Verification) error
	// CreateSession stores a session under the hash of its token.
	CreateSession(ctx context.Context, tokenHash []byte, accountID string, expiresAt time.Time) error
}

// Session is an authenticated caller of the control plane.
type Session struct {
	AccountID string
	// CredentialID identifies the credential for the audit trail (a prefix of
	// its hash), never the credential itself.
	CredentialID string
	ActorType    string
}

// AccountRecord is what the read side knows of an account.
type AccountRecord struct {
	ID            string
	Email         string
	EmailVerified bool
}

// FormRecord is the forms read model as /v1 and /submit read it.
type FormRecord struct {
	ID                string
	AccountID         string
	WorkspaceID       string
	AccessKeyPrefix   string
	Settings          form.Settings
	RecipientVerified bool
	Version           int
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// VerificationRecord is the verifications read model.
type VerificationRecord struct {
	ID         string
	Kind       verification.Kind
	SubjectID  string
	Email      string
	DeliveryID string
	Status     verification.Status
	ExpiresAt  time.Time
}

// HistoryEntry is one event of a form's audit trail.
type HistoryEntry struct {
	Type       string
	Version    int
	RecordedAt time.Time
	Metadata   Metadata
	// Event is the domain event, decoded from its stored shape by the adapter.
	Event any
}

// ReadModel answers queries from projections kept by the adapters.
type ReadModel interface {
	SessionByTokenHash(ctx context.Context, tokenHash []byte, now time.Time) (AccountRecord, error)
	AccountByEmail(ctx context.Context, email string) (AccountRecord, error)
	FormsByAccount(ctx context.Context, accountID string) ([]FormRecord, error)
	FormByID(ctx context.Context, id string) (FormRecord, error)
	FormByAccessKeyHash(ctx context.Context, hash []byte) (FormRecord, error)
	VerificationByTokenHash(ctx context.Context, hash []byte) (VerificationRecord, error)
	LatestVerification(ctx context.Context, kind verification.Kind, subjectID string) (VerificationRecord, error)
	StreamHistory(ctx context.Context, streamID string) ([]HistoryEntry, error)
}

// Feature names of paid or manually granted entitlements.
const (
	FeatureServerSide      = "server_side_submissions"
	FeatureCC              = "cc_recipients"
	FeatureWebhook         = "per_submit_webhook"
	FeatureUploads         = "file_uploads"
	FeatureCrossRedirect   = "cross_domain_redirect"
	FeatureWildcardDomains = "advanced_domains"
)

// Entitlements says which paid or manually granted features an account has.
type Entitlements interface {
	Has(ctx context.Context, accountID, feature string) (bool, error)
}

// PasswordHasher hashes and checks passwords (Argon2id in production).
type PasswordHasher interface {
	Hash(password string) (string, error)
	Verify(password, encoded string) (bool, error)
}

// Clock tells the time; tests may fix it.
type Clock interface{ Now() time.Time }

// IDs makes new random identifiers (UUIDs).
type IDs interface{ New() string }

// LinkTokens derives the one-time token of a verification link from the
// verification id and the server secret, so the token itself is never stored.
type LinkTokens interface {
	Token(verificationID string) string
}
