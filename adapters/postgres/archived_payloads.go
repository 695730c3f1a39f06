package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// ShredArchivedPayloads implements application.ArchivedPayloads: in one
// transaction it shreds up to limit payloads whose archive ended before
// now, whose deliveries are all final (pending 0) and whose failed
// delivery's hold for a retry (keep_until) ended too, and records
// submission.redacted on each. Rows another process is shredding are
// skipped (SKIP LOCKED), so processes share the work and each payload is
// shredded once; the partial index submission_payloads_archived finds them.
func (d *DeliveryStore) ShredArchivedPayloads(ctx context.Context, now time.Time, limit int) (int, error) {
	return d.shredSelected(ctx, now, `SELECT submission_id::text FROM submission_payloads
		WHERE archived_until < $1 AND pending = 0 AND (keep_until IS NULL OR keep_until < $1)
		ORDER BY archived_until LIMIT $2 FOR UPDATE SKIP LOCKED`, now, limit)
}

// shredSelected shreds, in one transaction, the payloads of the submissions
// whose ids query selects (and locks), records submission.redacted on each
// (redact), and returns how many it shredded.
func (d *DeliveryStore) shredSelected(ctx context.Context, now time.Time, query string, args ...any) (int, error) {
	var n int
	var redacted []StreamEvents
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		n = len(ids)
		redacted, err = d.redact(ctx, tx, ids, nil, now)
		return err
	})
	if err != nil {
		return 0, err
	}
	d.store.Committed(redacted...)
	return n, nil
}
