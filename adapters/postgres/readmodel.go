package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres/eventcodec"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/verification"
)

// ReadModel implements application.ReadModel, application.Entitlements and
// application.AccountPlans.
type ReadModel struct {
	pool  *pgxpool.Pool
	store *EventStore
}

// NewReadModel builds the read side on pool.
func NewReadModel(pool *pgxpool.Pool, store *EventStore) *ReadModel {
	return &ReadModel{pool: pool, store: store}
}

// notFound is a read's error as the application knows it: no rows is
// domain.ErrNotFound, a lost connection application.ErrUnavailable.
func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.ErrNotFound
	}
	return unavailable(err)
}

// SessionByTokenHash finds the account of an unexpired session.
func (r *ReadModel) SessionByTokenHash(ctx context.Context, hash []byte, now time.Time) (application.AccountRecord, error) {
	var a application.AccountRecord
	err := r.pool.QueryRow(ctx, `
		SELECT a.id::text, a.email, a.email_verified FROM sessions s JOIN accounts a ON a.id = s.account_id
		WHERE s.token_hash = $1 AND s.expires_at > $2`, hash, now).Scan(&a.ID, &a.Email, &a.EmailVerified)
	return a, notFound(err)
}

// AccountByEmail finds an account by its normalized email.
func (r *ReadModel) AccountByEmail(ctx context.Context, email string) (application.AccountRecord, error) {
	var a application.AccountRecord
	err := r.pool.QueryRow(ctx, `SELECT id::text, email, email_verified FROM accounts WHERE email = $1`, email).
		Scan(&a.ID, &a.Email, &a.EmailVerified)
	return a, notFound(err)
}

const formColumns = `id::text, account_id::text, workspace_id::text, access_key_prefix, settings,
	recipient_verified, version, created_at, updated_at, integrations, verified_routes`

func scanForm(row pgx.Row) (application.FormRecord, error) {
	var f application.FormRecord
	var settings, integrations []byte
	err := row.Scan(&f.ID, &f.AccountID, &f.WorkspaceID, &f.AccessKeyPrefix, &settings,
		&f.RecipientVerified, &f.Version, &f.CreatedAt, &f.UpdatedAt, &integrations, &f.VerifiedRoutes)
	if err != nil {
		return f, notFound(err)
	}
	if f.Settings, err = eventcodec.DecodeSettings(settings); err != nil {
		return f, err
	}
	f.Integrations, err = eventcodec.DecodeIntegrations(integrations)
	return f, err
}

// FormsByAccount lists an account's forms, oldest first.
func (r *ReadModel) FormsByAccount(ctx context.Context, accountID string) ([]application.FormRecord, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+formColumns+` FROM forms WHERE account_id = $1 ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, unavailable(err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (application.FormRecord, error) { return scanForm(row) })
}

// FormByID finds a form; an id that is not a UUID is simply not found
// (never a PostgreSQL error carrying the caller's text).
func (r *ReadModel) FormByID(ctx context.Context, id string) (application.FormRecord, error) {
	if !isUUID(id) {
		return application.FormRecord{}, domain.ErrNotFound
	}
	return scanForm(r.pool.QueryRow(ctx, `SELECT `+formColumns+` FROM forms WHERE id = $1`, id))
}

// FormByAccessKeyHash routes a submission to its form.
func (r *ReadModel) FormByAccessKeyHash(ctx context.Context, hash []byte) (application.FormRecord, error) {
	return scanForm(r.pool.QueryRow(ctx, `SELECT `+formColumns+` FROM forms WHERE access_key_hash = $1`, hash))
}

const verificationColumns = `id::text, kind, subject_id::text, email, delivery_id::text, status, expires_at, token_hash`

func scanVerification(row pgx.Row) (application.VerificationRecord, error) {
	var v application.VerificationRecord
	err := row.Scan(&v.ID, &v.Kind, &v.SubjectID, &v.Email, &v.DeliveryID, &v.Status, &v.ExpiresAt, &v.TokenHash)
	return v, notFound(err)
}

// VerificationByTokenHash finds the verification a link belongs to.
func (r *ReadModel) VerificationByTokenHash(ctx context.Context, hash []byte) (application.VerificationRecord, error) {
	return scanVerification(r.pool.QueryRow(ctx, `SELECT `+verificationColumns+` FROM verifications WHERE token_hash = $1`, hash))
}

// VerificationByID implements application.Verifications: with a recipient
// verification, its form's language as the form has it now.
func (r *ReadModel) VerificationByID(ctx context.Context, id string) (application.VerificationRecord, error) {
	var v application.VerificationRecord
	err := r.pool.QueryRow(ctx, `SELECT v.id::text, v.kind, v.subject_id::text, v.email, v.delivery_id::text, v.status, v.expires_at, v.token_hash,
		COALESCE(NULLIF(f.settings->>'language', ''), v.language)
		FROM verifications v LEFT JOIN forms f ON v.kind IN ('recipient', 'route_recipient') AND f.id = v.subject_id WHERE v.id = $1`, id).
		Scan(&v.ID, &v.Kind, &v.SubjectID, &v.Email, &v.DeliveryID, &v.Status, &v.ExpiresAt, &v.TokenHash, &v.Language)
	return v, notFound(err)
}

// LatestVerification finds the newest verification of a subject.
func (r *ReadModel) LatestVerification(ctx context.Context, kind verification.Kind, subjectID string) (application.VerificationRecord, error) {
	return scanVerification(r.pool.QueryRow(ctx, `SELECT `+verificationColumns+` FROM verifications
		WHERE subject_id = $1 AND kind = $2 ORDER BY created_at DESC, id LIMIT 1`, subjectID, string(kind)))
}

// LatestVerificationTo finds the newest verification of a subject sent to email.
func (r *ReadModel) LatestVerificationTo(ctx context.Context, kind verification.Kind, subjectID, email string) (application.VerificationRecord, error) {
	return scanVerification(r.pool.QueryRow(ctx, `SELECT `+verificationColumns+` FROM verifications
		WHERE subject_id = $1 AND kind = $2 AND lower(email) = lower($3) ORDER BY created_at DESC, id LIMIT 1`, subjectID, string(kind), email))
}

// StreamHistory reads a stream's events for the audit trail.
func (r *ReadModel) StreamHistory(ctx context.Context, streamID string) ([]application.HistoryEntry, error) {
	stored, err := r.store.Load(ctx, r.pool, streamID)
	if err != nil {
		return nil, unavailable(err)
	}
	out := make([]application.HistoryEntry, len(stored))
	for i, s := range stored {
		e, err := Decode(s)
		if err != nil {
			return nil, err
		}
		out[i] = application.HistoryEntry{Type: s.Type, Version: s.Version, RecordedAt: s.RecordedAt, Metadata: s.Metadata, Event: e}
	}
	return out, nil
}

// SigningSecrets implements application.WebhookSecrets: the current secret
// first, then rotated-out ones that have not expired at now.
func (r *ReadModel) SigningSecrets(ctx context.Context, formID string, now time.Time) ([]application.StoredWebhookSecret, error) {
	rows, err := r.pool.Query(ctx, `
		SELECT id::text, form_id::text, prefix, key_id, wrapped_key, ciphertext, created_at, expires_at
		FROM webhook_secrets WHERE form_id = $1 AND (expires_at IS NULL OR expires_at > $2)
		ORDER BY expires_at IS NULL DESC, created_at DESC, id`, formID, now)
	if err != nil {
		return nil, unavailable(err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (application.StoredWebhookSecret, error) {
		var s application.StoredWebhookSecret
		var expires *time.Time
		err := row.Scan(&s.ID, &s.FormID, &s.Prefix, &s.Sealed.KeyID, &s.Sealed.WrappedKey, &s.Sealed.Ciphertext, &s.CreatedAt, &expires)
		if expires != nil {
			s.ExpiresAt = *expires
		}
		return s, err
	})
}

// CaptchaSecret implements application.CaptchaSecrets.
func (r *ReadModel) CaptchaSecret(ctx context.Context, formID string) (application.StoredCaptchaSecret, error) {
	s := application.StoredCaptchaSecret{FormID: formID}
	err := r.pool.QueryRow(ctx, `SELECT secret_id::text, key_id, wrapped_key, ciphertext, created_at FROM captcha_secrets WHERE form_id = $1`,
		formID).Scan(&s.ID, &s.Sealed.KeyID, &s.Sealed.WrappedKey, &s.Sealed.Ciphertext, &s.CreatedAt)
	return s, notFound(err)
}
