package postgres

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
)

// TestInbox keeps test submissions' sealed renderings (application.TestInboxStore).
type TestInbox struct{ pool *pgxpool.Pool }

// NewTestInbox builds the store.
func NewTestInbox(pool *pgxpool.Pool) *TestInbox { return &TestInbox{pool: pool} }

// AddTestSubmission inserts one and trims the form's inbox to keep, in one
// transaction, so the inbox never holds more than keep rows of a form.
func (t *TestInbox) AddTestSubmission(ctx context.Context, s application.StoredTestSubmission, keep int) error {
	return pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO test_inbox (id, form_id, request_id, idempotency_key, received_at, expires_at, key_id, wrapped_key, ciphertext)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			s.ID, s.FormID, s.RequestID, s.IdempotencyKey, s.ReceivedAt, s.ExpiresAt, s.Sealed.KeyID, s.Sealed.WrappedKey, s.Sealed.Ciphertext); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM test_inbox WHERE form_id = $1 AND id NOT IN
			(SELECT id FROM test_inbox WHERE form_id = $1 ORDER BY received_at DESC, id DESC LIMIT $2)`, s.FormID, keep)
		return err
	})
}

// TestSubmissions lists a form's unexpired test submissions, newest first.
func (t *TestInbox) TestSubmissions(ctx context.Context, formID string, f application.TestInboxFilter, now time.Time) ([]application.StoredTestSubmission, error) {
	rows, err := t.pool.Query(ctx, `SELECT id, form_id, request_id, idempotency_key, received_at, expires_at, key_id, wrapped_key, ciphertext
		FROM test_inbox WHERE form_id = $1 AND expires_at > $2 AND ($3 = '' OR request_id = $3) AND ($4 = '' OR idempotency_key = $4)
		ORDER BY received_at DESC, id DESC LIMIT $5`, formID, now, f.RequestID, f.IdempotencyKey, f.Limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []application.StoredTestSubmission
	for rows.Next() {
		var s application.StoredTestSubmission
		var key, text []byte
		if err := rows.Scan(&s.ID, &s.FormID, &s.RequestID, &s.IdempotencyKey, &s.ReceivedAt, &s.ExpiresAt, &s.Sealed.KeyID, &key, &text); err != nil {
			return nil, err
		}
		s.Sealed.WrappedKey, s.Sealed.Ciphertext = slices.Clone(key), slices.Clone(text)
		out = append(out, s)
	}
	return out, rows.Err()
}

// ClearTestInbox deletes every test submission of a form.
func (t *TestInbox) ClearTestInbox(ctx context.Context, formID string) (int, error) {
	tag, err := t.pool.Exec(ctx, `DELETE FROM test_inbox WHERE form_id = $1`, formID)
	return int(tag.RowsAffected()), err
}

// DeleteExpiredTestSubmissions deletes those past their retention.
func (t *TestInbox) DeleteExpiredTestSubmissions(ctx context.Context, now time.Time) (int, error) {
	tag, err := t.pool.Exec(ctx, `DELETE FROM test_inbox WHERE expires_at <= $1`, now)
	return int(tag.RowsAffected()), err
}
