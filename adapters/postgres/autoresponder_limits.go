package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// AutoresponderWindow is how long one autoresponder to an address holds back
// the next one of the same form.
const AutoresponderWindow = time.Hour

// AutoresponderLimits implements application.AutoresponderLimits on the
// autoresponder_sends table, so every process shares one count.
type AutoresponderLimits struct{ pool *pgxpool.Pool }

// NewAutoresponderLimits builds the limits on pool.
func NewAutoresponderLimits(pool *pgxpool.Pool) *AutoresponderLimits {
	return &AutoresponderLimits{pool: pool}
}

// Reserve implements application.AutoresponderLimits: one statement takes
// the slot when it is free, older than the window, or already this request's
// (a retried commit of the same submission), so two processes racing for one
// address cannot both win.
func (l *AutoresponderLimits) Reserve(ctx context.Context, formID, addressHash, requestID string, now time.Time) (bool, error) {
	var took bool
	err := l.pool.QueryRow(ctx, `INSERT INTO autoresponder_sends (form_id, address_hash, request_id, reserved_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (form_id, address_hash) DO UPDATE SET request_id = EXCLUDED.request_id, reserved_at = EXCLUDED.reserved_at
		WHERE autoresponder_sends.reserved_at <= EXCLUDED.reserved_at - $5::interval
		   OR autoresponder_sends.request_id = EXCLUDED.request_id
		RETURNING true`, formID, addressHash, requestID, now, AutoresponderWindow.String()).Scan(&took)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return took, err
}

// PruneAutoresponderSends deletes reservations older than the window.
func PruneAutoresponderSends(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	tag, err := pool.Exec(ctx, `DELETE FROM autoresponder_sends WHERE reserved_at < now() - $1::interval`, AutoresponderWindow.String())
	return tag.RowsAffected(), err
}
