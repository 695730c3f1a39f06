package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// ReadModel answers queries from projections kept by the adapters. It is
// the union one adapter implements; each use case asks only for the reader
// it needs.
type ReadModel interface {
	SessionReader
	AccountReader
	FormReader
	FormLister
	VerificationReader
	HistoryReader
	WorkspaceReader
}

// SessionReader finds the account of a dashboard or agent session.
type SessionReader interface {
	SessionByTokenHash(ctx context.Context, tokenHash []byte, now time.Time) (AccountRecord, error)
}

// AccountReader finds accounts by their address.
type AccountReader interface {
	AccountByEmail(ctx context.Context, email string) (AccountRecord, error)
}

// FormReader reads one form of the forms read model.
type FormReader interface {
	FormByID(ctx context.Context, id string) (FormRecord, error)
}

// FormLister lists an account's forms.
type FormLister interface {
	FormsByAccount(ctx context.Context, accountID string) ([]FormRecord, error)
}

// VerificationReader finds verifications by their link's token or by what
// they verify.
type VerificationReader interface {
	VerificationByTokenHash(ctx context.Context, hash []byte) (VerificationRecord, error)
	LatestVerification(ctx context.Context, kind verification.Kind, subjectID string) (VerificationRecord, error)
	// LatestVerificationTo is the newest verification of a subject sent
	// to email (compared case-insensitively): a form's routing recipients
	// each have their own.
	LatestVerificationTo(ctx context.Context, kind verification.Kind, subjectID, email string) (VerificationRecord, error)
}

// HistoryReader reads a stream's audit trail.
type HistoryReader interface {
	StreamHistory(ctx context.Context, streamID string) ([]HistoryEntry, error)
}

// WorkspaceReader lists an account's workspaces.
type WorkspaceReader interface {
	// WorkspacesByAccount lists the account's workspaces, oldest first.
	WorkspacesByAccount(ctx context.Context, accountID string) ([]WorkspaceRecord, error)
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
	// Integrations are the form's configured integrations in display order.
	Integrations []form.Integration
	// VerifiedRoutes are the routing recipients whose own link was
	// followed (form.RouteVerified says who may receive routed mail).
	VerifiedRoutes []string
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
	// TokenHash is the hash of the link's token (HashSecret), which says
	// which accepted key made the token the request mailed.
	TokenHash []byte
	// Language is the catalog language of the link's mail: for a recipient
	// or routing recipient, its form's language when set (read when the
	// mail is sent), else the language of the request that asked for the
	// link; blank is English.
	Language string
}

// HistoryEntry is one event of a form's audit trail.
type HistoryEntry struct {
	Type       string
	Version    int
	RecordedAt time.Time
	Metadata   Metadata
	// ActorName is how the trail shows Metadata.Actor to a person (see
	// ActorName), resolved when the trail is read; empty where nobody asked.
	ActorName string
	// Event is the domain event, decoded from its stored shape by the adapter.
	Event any
}

// WorkspaceRecord is one workspace of an account (GET /v1/workspaces).
type WorkspaceRecord struct {
	ID        string
	AccountID string
	Name      string
	CreatedAt time.Time
}
