package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// AutoresponderWindow is how long one autoresponder to an address holds back
// the next one of the same form.
const AutoresponderWindow = time.Hour

// PruneAutoresponderSends deletes reservations older than the window.
func PruneAutoresponderSends(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	tag, err := pool.Exec(ctx, `DELETE FROM autoresponder_sends WHERE reserved_at < now() - $1::interval`, AutoresponderWindow.String())
	return tag.RowsAffected(), err
}
