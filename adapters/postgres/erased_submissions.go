package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

// EraseArchivedSubmission implements application.SubmissionEraser: it
// shreds one archived payload of the form exactly as the retention sweep
// does (redact), whatever its end of retention or a failed delivery's hold.
func (d *DeliveryStore) EraseArchivedSubmission(ctx context.Context, formID, submissionID string, now time.Time) error {
	if !isUUID(submissionID) {
		return domain.ErrNotFound
	}
	var redacted []StreamEvents
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		var pending int
		err := tx.QueryRow(ctx, `SELECT pending FROM submission_payloads
			WHERE submission_id = $1 AND form_id = $2 AND archived_until IS NOT NULL FOR UPDATE`,
			submissionID, formID).Scan(&pending)
		if errors.Is(err, pgx.ErrNoRows) {
			return domain.ErrNotFound
		}
		if err != nil {
			return err
		}
		if pending > 0 {
			return application.ErrDeliveriesPending
		}
		redacted, err = d.redact(ctx, tx, []string{submissionID}, nil, now)
		return err
	})
	if err == nil {
		d.store.Committed(redacted...)
	}
	return err
}

// archivedByValueHash selects the archived payloads of form $1, and those
// held in its Spam folder, whose value of field $2 hashes to one of $3
// (their value_hashes index, which formd rekey keeps under the current key).
const archivedByValueHash = `FROM submission_payloads p
	WHERE p.form_id = $1 AND (p.archived_until IS NOT NULL OR p.held_until IS NOT NULL)
	AND p.value_hashes->>$2::text = ANY($3::text[])`

// EraseArchivedByValueHash implements application.SubmissionEraser.
func (d *DeliveryStore) EraseArchivedByValueHash(ctx context.Context, formID, field string, hashes []string, limit int, now time.Time) (int, error) {
	return d.shredSelected(ctx, now, `SELECT p.submission_id::text `+archivedByValueHash+`
		AND p.pending = 0 LIMIT $4 FOR UPDATE OF p`, formID, field, hashes, limit)
}

// PendingArchivedByValueHash implements application.SubmissionEraser.
func (d *DeliveryStore) PendingArchivedByValueHash(ctx context.Context, formID, field string, hashes []string) (int, error) {
	var n int
	err := d.pool.QueryRow(ctx, `SELECT count(*) `+archivedByValueHash+` AND p.pending > 0`, formID, field, hashes).Scan(&n)
	return n, err
}
