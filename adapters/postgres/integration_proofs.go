package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/domain/form"
)

// IntegrationProofs implements application.IntegrationCodes,
// application.TelegramPolls and application.IntegrationTestLimits in
// PostgreSQL, so every process shares the codes, one polling lease and
// the count of test calls.
type IntegrationProofs struct{ pool *pgxpool.Pool }

// NewIntegrationProofs builds them on pool.
func NewIntegrationProofs(pool *pgxpool.Pool) *IntegrationProofs {
	return &IntegrationProofs{pool: pool}
}

// Issue implements application.IntegrationCodes.
func (p *IntegrationProofs) Issue(ctx context.Context, formID string, t form.IntegrationType, codeHash []byte, expiresAt time.Time) error {
	_, err := p.pool.Exec(ctx, `INSERT INTO integration_codes (form_id, integration, code_hash, expires_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (form_id, integration) DO UPDATE SET code_hash = EXCLUDED.code_hash, expires_at = EXCLUDED.expires_at`,
		formID, string(t), codeHash, expiresAt)
	if err != nil {
		return fmt.Errorf("issuing a %s connect code: %w", t, err)
	}
	return nil
}

// Redeem implements application.IntegrationCodes: one DELETE takes the
// code, so two processes reading the same update cannot both redeem it.
func (p *IntegrationProofs) Redeem(ctx context.Context, t form.IntegrationType, codeHash []byte, now time.Time) (string, bool, error) {
	var formID string
	err := p.pool.QueryRow(ctx, `DELETE FROM integration_codes WHERE integration = $1 AND code_hash = $2 AND expires_at > $3
		RETURNING form_id::text`, string(t), codeHash, now).Scan(&formID)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("redeeming a %s connect code: %w", t, err)
	}
	return formID, true, nil
}

// Poll implements application.TelegramPolls: the lease is the offset row,
// locked for the round with SKIP LOCKED, so a second process passes by
// instead of waiting, and the offset is written in the same transaction.
func (p *IntegrationProofs) Poll(ctx context.Context, fn func(next int64) (int64, error)) (bool, error) {
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var next int64
	err = tx.QueryRow(ctx, `SELECT next_update_id FROM telegram_updates FOR UPDATE SKIP LOCKED`).Scan(&next)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("taking the telegram polling lease: %w", err)
	}
	after, fnErr := fn(next)
	if after != next {
		if _, err := tx.Exec(ctx, `UPDATE telegram_updates SET next_update_id = $1`, after); err != nil {
			return true, errors.Join(fnErr, err)
		}
		if err := tx.Commit(ctx); err != nil {
			return true, errors.Join(fnErr, err)
		}
	}
	return true, fnErr
}

// Take implements application.IntegrationTestLimits. The form's calls are
// counted under a transaction-scoped advisory lock of the form, so calls
// racing in several processes are counted one after the other.
func (p *IntegrationProofs) Take(ctx context.Context, formID string, limit int, window time.Duration, now time.Time) (bool, time.Duration, error) {
	var ok bool
	var retry time.Duration
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('integration_test:' || $1::text, 0))`, formID); err != nil {
			return err
		}
		since := now.Add(-window)
		if _, err := tx.Exec(ctx, `DELETE FROM integration_test_calls WHERE form_id = $1 AND called_at <= $2`, formID, since); err != nil {
			return err
		}
		var n int
		var oldest *time.Time
		if err := tx.QueryRow(ctx, `SELECT count(*), min(called_at) FROM integration_test_calls WHERE form_id = $1`, formID).Scan(&n, &oldest); err != nil {
			return err
		}
		if n >= limit {
			ok, retry = false, oldest.Add(window).Sub(now)
			return nil
		}
		ok = true
		_, err := tx.Exec(ctx, `INSERT INTO integration_test_calls (form_id, called_at) VALUES ($1, $2)`, formID, now)
		return err
	})
	if err != nil {
		return false, 0, fmt.Errorf("counting integration tests: %w", err)
	}
	return ok, retry, nil
}
