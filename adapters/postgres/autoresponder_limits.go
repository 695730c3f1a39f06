package postgres

import (
	"context"
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

// Reserve implements application.AutoresponderLimits with the commit's
// statement (takeSlots): the slot is taken when it is free, older than the
// window, or already this request's, so two processes racing for one
// address cannot both win.
func (l *AutoresponderLimits) Reserve(ctx context.Context, formID, addressHash, requestID string, now time.Time) (bool, error) {
	c := slotClaims{forms: []string{formID}, addresses: []string{addressHash}, requests: []string{requestID}, at: []time.Time{now}}
	rows, err := l.pool.Query(ctx, takeSlots, c.args()...)
	if err != nil {
		return false, err
	}
	taken, err := pgx.CollectRows(rows, func(pgx.CollectableRow) (bool, error) { return true, nil })
	return len(taken) > 0, err
}

// PruneAutoresponderSends deletes reservations older than the window.
func PruneAutoresponderSends(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	tag, err := pool.Exec(ctx, `DELETE FROM autoresponder_sends WHERE reserved_at < now() - $1::interval`, AutoresponderWindow.String())
	return tag.RowsAffected(), err
}
