package postgres

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres/eventcodec"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// maxConcurrencyRetries bounds how often a command is re-run after losing a
// race on a stream version.
const maxConcurrencyRetries = 20

// Transactor implements application.Transactor on PostgreSQL.
type Transactor struct {
	pool  *pgxpool.Pool
	store *EventStore
	clock application.Clock
}

// NewTransactor builds the unit-of-work runner.
func NewTransactor(pool *pgxpool.Pool, store *EventStore, clock application.Clock) *Transactor {
	return &Transactor{pool: pool, store: store, clock: clock}
}

// InTx implements application.Transactor.
func (t *Transactor) InTx(ctx context.Context, md application.Metadata, fn func(application.Tx) error) error {
	var err error
	for attempt := 0; attempt < maxConcurrencyRetries; attempt++ {
		// REPEATABLE READ: a command sees only streams committed before its
		// snapshot, so an append that follows a newer commit fails on the
		// primary key instead of publishing out of version order (Watermill
		// orders messages by transaction id).
		err = pgx.BeginTxFunc(ctx, t.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
			return fn(&unitOfWork{tx: tx, md: md, store: t.store, now: t.clock.Now()})
		})
		if !errors.Is(err, domain.ErrConcurrency) && !isRetryable(err) {
			return unavailable(err)
		}
		// Back off a little, with jitter, so racing commands spread out
		// instead of colliding again on every attempt.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(1+rand.IntN(5*(attempt+1))) * time.Millisecond):
		}
	}
	return unavailable(err)
}

type unitOfWork struct {
	tx    pgx.Tx
	md    application.Metadata
	store *EventStore
	now   time.Time
}

func (u *unitOfWork) append(ctx context.Context, streamType, id string, expected int, events []Event) error {
	return u.store.Append(ctx, u.tx, u.now, StreamEvents{
		StreamType: streamType, StreamID: id, ExpectedVersion: expected, Events: events, Metadata: u.md,
	})
}

func asTyped[E Event](events []E) []Event {
	out := make([]Event, len(events))
	for i, e := range events {
		out[i] = e
	}
	return out
}

func (u *unitOfWork) LoadForm(ctx context.Context, id string) (*form.Form, error) {
	stored, err := u.store.Load(ctx, u.tx, id)
	if err != nil {
		return nil, err
	}
	events, err := decodeAll[form.Event](stored)
	if err != nil {
		return nil, err
	}
	return form.FromHistory(events)
}

func (u *unitOfWork) SaveForm(ctx context.Context, f *form.Form) error {
	if len(f.Changes()) == 0 {
		return nil
	}
	if err := u.append(ctx, StreamForm, f.ID(), f.Version(), asTyped(f.Changes())); err != nil {
		return err
	}
	settings, err := eventcodec.EncodeSettings(f.Settings())
	if err != nil {
		return err
	}
	integrations, err := eventcodec.EncodeIntegrations(f.Integrations())
	if err != nil {
		return err
	}
	_, err = u.tx.Exec(ctx, `
		INSERT INTO forms (id, account_id, workspace_id, access_key_hash, access_key_prefix, settings,
		                   recipient_verified, version, created_at, updated_at, integrations)
		VALUES ($1, $2, $3, decode($4, 'hex'), $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (id) DO UPDATE SET settings = excluded.settings,
		    recipient_verified = excluded.recipient_verified, version = excluded.version,
		    updated_at = excluded.updated_at, integrations = excluded.integrations`,
		f.ID(), f.AccountID(), f.WorkspaceID(), f.AccessKeyHash(), f.AccessKeyPrefix(), settings,
		f.RecipientVerified(), f.Version()+len(f.Changes()), f.CreatedAt(), f.UpdatedAt(), integrations)
	if err != nil || !changesVerifiedRoutes(f.Changes()) {
		return err
	}
	_, err = u.tx.Exec(ctx, `UPDATE forms SET verified_routes = $2 WHERE id = $1`, f.ID(), verifiedRoutes(f))
	return err
}

// changesVerifiedRoutes says whether events may change a form's verified
// routing recipients: only then is the column written, so a form saved
// otherwise writes what it wrote before routing existed.
func changesVerifiedRoutes(events []form.Event) bool {
	for _, e := range events {
		switch e.(type) {
		case form.RouteRecipientVerified, form.SettingsChanged, form.SettingsRestored:
			return true
		}
	}
	return false
}

func (u *unitOfWork) LoadAccount(ctx context.Context, id string) (*account.Account, error) {
	stored, err := u.store.Load(ctx, u.tx, id)
	if err != nil {
		return nil, err
	}
	events, err := decodeAll[account.Event](stored)
	if err != nil {
		return nil, err
	}
	return account.FromHistory(events)
}

func (u *unitOfWork) SaveAccount(ctx context.Context, a *account.Account) error {
	if err := u.append(ctx, StreamAccount, a.ID(), a.Version(), asTyped(a.Changes())); err != nil {
		return err
	}
	for _, e := range a.Changes() {
		var err error
		switch e := e.(type) {
		case account.Registered:
			_, err = u.tx.Exec(ctx, `INSERT INTO accounts (id, email, created_at) VALUES ($1, $2, $3)`, e.AccountID, e.Email, e.At)
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == "23505" {
				return account.ErrEmailTaken
			}
			if err == nil {
				_, err = u.tx.Exec(ctx, `INSERT INTO workspaces (id, account_id, name, created_at) VALUES ($1, $2, $3, $4)`,
					e.WorkspaceID, e.AccountID, e.WorkspaceName, e.At)
			}
		case account.EmailVerified:
			_, err = u.tx.Exec(ctx, `UPDATE accounts SET email_verified = true WHERE id = $1`, a.ID())
		case account.WorkspaceCreated:
			_, err = u.tx.Exec(ctx, `INSERT INTO workspaces (id, account_id, name, created_at) VALUES ($1, $2, $3, $4)`,
				e.WorkspaceID, a.ID(), e.Name, e.At)
		case account.TokenCreated:
			scopes := make([]string, len(e.Scopes))
			for i, sc := range e.Scopes {
				scopes[i] = string(sc)
			}
			_, err = u.tx.Exec(ctx, `
				INSERT INTO workspace_tokens (id, account_id, workspace_id, name, prefix, token_hash, scopes, created_at, expires_at)
				VALUES ($1, $2, $3, $4, $5, decode($6, 'hex'), $7, $8, $9)`,
				e.TokenID, a.ID(), e.WorkspaceID, e.Name, e.Prefix, e.TokenHash, scopes, e.At, e.ExpiresAt)
		case account.TokenRevoked:
			_, err = u.tx.Exec(ctx, `DELETE FROM workspace_tokens WHERE id = $1`, e.TokenID)
		case account.FeatureGranted:
			// Grants made before they were events are already rows here.
			_, err = u.tx.Exec(ctx, `INSERT INTO entitlements (account_id, feature) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
				a.ID(), e.Feature)
		case account.FeatureRevoked:
			_, err = u.tx.Exec(ctx, `DELETE FROM entitlements WHERE account_id = $1 AND feature = $2`, a.ID(), e.Feature)
		case account.PlanChanged:
			_, err = u.tx.Exec(ctx, `UPDATE accounts SET plan = $2 WHERE id = $1`, a.ID(), string(e.Plan))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (u *unitOfWork) LoadVerification(ctx context.Context, id string) (*verification.Verification, error) {
	stored, err := u.store.Load(ctx, u.tx, id)
	if err != nil {
		return nil, err
	}
	events, err := decodeAll[verification.Event](stored)
	if err != nil {
		return nil, err
	}
	return verification.FromHistory(events)
}

func (u *unitOfWork) SaveVerification(ctx context.Context, v *verification.Verification) error {
	if err := u.append(ctx, StreamVerification, v.VerificationID, v.Version(), asTyped(v.Changes())); err != nil {
		return err
	}
	_, err := u.tx.Exec(ctx, `
		INSERT INTO verifications (id, kind, subject_id, email, token_hash, delivery_id, status, expires_at, created_at, account_id, language)
		VALUES ($1, $2, $3, $4, decode($5, 'hex'), $6, $7, $8, $9, NULLIF($10, '')::uuid, $11)
		ON CONFLICT (id) DO UPDATE SET status = excluded.status`,
		v.VerificationID, v.Kind, v.SubjectID, v.Email, v.TokenHash, v.DeliveryID, v.Status(), v.ExpiresAt, v.At, v.AccountID, v.Language)
	return err
}

// QueueDelivery implements application.Tx: the delivery's stream starts
// with its delivery.queued event, which the delivery-queue consumer group
// projects into the queue as it does a submission's deliveries.
func (u *unitOfWork) QueueDelivery(ctx context.Context, q delivery.Queued) error {
	return u.append(ctx, StreamDelivery, q.DeliveryID, 0, []Event{q})
}

func (u *unitOfWork) CreateSession(ctx context.Context, tokenHash []byte, accountID string, expiresAt time.Time) error {
	_, err := u.tx.Exec(ctx, `INSERT INTO sessions (token_hash, account_id, expires_at) VALUES ($1, $2, $3)`,
		tokenHash, accountID, expiresAt)
	return err
}

func (u *unitOfWork) EndSessions(ctx context.Context, accountID string) error {
	_, err := u.tx.Exec(ctx, `DELETE FROM sessions WHERE account_id = $1`, accountID)
	return err
}

func (u *unitOfWork) EndSession(ctx context.Context, tokenHash []byte) error {
	_, err := u.tx.Exec(ctx, `DELETE FROM sessions WHERE token_hash = $1`, tokenHash)
	return err
}

// isRetryable reports PostgreSQL errors that a fresh attempt resolves:
// serialization failures and deadlocks.
func isRetryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}

// StoreWebhookSecret implements application.Tx: the secrets that were
// current stop signing at retireAt, and the new sealed one becomes current.
func (u *unitOfWork) StoreWebhookSecret(ctx context.Context, s application.StoredWebhookSecret, retireAt time.Time) error {
	if !retireAt.IsZero() {
		if _, err := u.tx.Exec(ctx, `UPDATE webhook_secrets SET expires_at = $2 WHERE form_id = $1 AND expires_at IS NULL`,
			s.FormID, retireAt); err != nil {
			return err
		}
	}
	_, err := u.tx.Exec(ctx, `
		INSERT INTO webhook_secrets (id, form_id, prefix, key_id, wrapped_key, ciphertext, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		s.ID, s.FormID, s.Prefix, s.Sealed.KeyID, s.Sealed.WrappedKey, s.Sealed.Ciphertext, s.CreatedAt)
	return err
}

// StoreCaptchaSecret implements application.Tx: the form's one captcha
// secret, replaced in place.
func (u *unitOfWork) StoreCaptchaSecret(ctx context.Context, s application.StoredCaptchaSecret) error {
	_, err := u.tx.Exec(ctx, `
		INSERT INTO captcha_secrets (form_id, secret_id, key_id, wrapped_key, ciphertext, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (form_id) DO UPDATE SET secret_id = EXCLUDED.secret_id, key_id = EXCLUDED.key_id,
			wrapped_key = EXCLUDED.wrapped_key, ciphertext = EXCLUDED.ciphertext, created_at = EXCLUDED.created_at`,
		s.FormID, s.ID, s.Sealed.KeyID, s.Sealed.WrappedKey, s.Sealed.Ciphertext, s.CreatedAt)
	return err
}

// DeleteCaptchaSecret implements application.Tx.
func (u *unitOfWork) DeleteCaptchaSecret(ctx context.Context, formID string) error {
	_, err := u.tx.Exec(ctx, `DELETE FROM captcha_secrets WHERE form_id = $1`, formID)
	return err
}

// verifiedRoutes are the form's verified routing recipients as the forms
// read model keeps them: never NULL.
func verifiedRoutes(f *form.Form) []string {
	if v := f.VerifiedRoutes(); v != nil {
		return v
	}
	return []string{}
}
