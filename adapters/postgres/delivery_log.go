package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// deliveryLogColumns are a DeliveryRecord's, read from deliveries d joined
// to forms f (absent for an account's mails), submission_payloads p and the
// submission's submission.accepted event e, the first of its stream: a
// primary-key lookup per row, for the spam check it recorded, which no read
// model keeps.
// While a worker holds a delivery (claimed_by is set until its attempt is
// recorded), the log shows no next attempt: one is under way.
const deliveryLogColumns = `d.id::text, coalesce(f.account_id::text, ''), coalesce(f.workspace_id::text, ''), coalesce(d.form_id::text, ''),
	coalesce(d.submission_id::text, ''), coalesce(d.verification_id::text, ''), d.kind, d.target, d.status,
	d.attempts, d.retries, d.last_error,
	CASE WHEN d.claimed_by IS NULL THEN d.next_attempt_at END, d.created_at, d.finished_at, p.submission_id IS NOT NULL,
	coalesce(e.data->>'spamCheck', ''),
	coalesce((SELECT r->>'note' FROM jsonb_array_elements(e.data->'deliveries') r WHERE r->>'id' = d.id::text), '')`

const deliveryLogFrom = ` FROM deliveries d
	LEFT JOIN forms f ON f.id = d.form_id
	LEFT JOIN submission_payloads p ON p.submission_id = d.submission_id
	LEFT JOIN events e ON e.stream_id = d.submission_id AND e.version = 1 AND e.event_type = '` + submission.AcceptedType + `'`

func scanDeliveryRecord(row pgx.Row) (application.DeliveryRecord, error) {
	var r application.DeliveryRecord
	err := row.Scan(&r.ID, &r.AccountID, &r.WorkspaceID, &r.FormID, &r.SubmissionID, &r.VerificationID, &r.Kind, &r.Target, &r.State,
		&r.Attempts, &r.Retries, &r.LastError, &r.NextAttemptAt, &r.CreatedAt, &r.FinishedAt, &r.PayloadKept, &r.SpamCheck, &r.Note)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, domain.ErrNotFound
	}
	// A final delivery has no next attempt, whatever its claim left there.
	if r.State == delivery.StateSucceeded || r.State == delivery.StateFailed {
		r.NextAttemptAt = nil
	}
	return r, err
}

// listedKinds are the stored kinds a form's log shows.
var listedKinds = []string{delivery.KindEmail, delivery.KindAutoresponder, delivery.KindWebhook, delivery.KindSlack, delivery.KindDiscord,
	delivery.KindRecipientVerification}

// FormDeliveries implements application.DeliveryLog with a keyset page on
// the deliveries_log index.
func (d *DeliveryStore) FormDeliveries(ctx context.Context, formID string, f application.DeliveryFilter) ([]application.DeliveryRecord, error) {
	kinds := f.Kinds
	if len(kinds) == 0 {
		kinds = listedKinds
	}
	var afterAt *time.Time
	var afterID *string
	if f.After != nil {
		afterAt, afterID = &f.After.CreatedAt, &f.After.ID
	}
	rows, err := d.pool.Query(ctx, `SELECT `+deliveryLogColumns+deliveryLogFrom+`
		WHERE d.form_id = $1 AND d.kind = ANY($2::text[]) AND ($3 = '' OR d.status = $3)
		  AND ($4::timestamptz IS NULL OR (d.created_at, d.id) < ($4::timestamptz, $5::uuid))
		ORDER BY d.created_at DESC, d.id DESC LIMIT $6`, formID, kinds, f.State, afterAt, afterID, f.Limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (application.DeliveryRecord, error) {
		return scanDeliveryRecord(row)
	})
}

// SubmissionDeliveries implements application.DeliveryLog through
// deliveries_submission.
func (d *DeliveryStore) SubmissionDeliveries(ctx context.Context, submissionID string) ([]application.DeliveryRecord, error) {
	if !isUUID(submissionID) {
		return nil, nil
	}
	rows, err := d.pool.Query(ctx, `SELECT `+deliveryLogColumns+deliveryLogFrom+`
		WHERE d.submission_id = $1 ORDER BY d.created_at, d.id`, submissionID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (application.DeliveryRecord, error) { return scanDeliveryRecord(row) })
}

// DeliveryByID implements application.DeliveryLog.
func (d *DeliveryStore) DeliveryByID(ctx context.Context, id string) (application.DeliveryRecord, error) {
	if !isUUID(id) {
		return application.DeliveryRecord{}, domain.ErrNotFound
	}
	return scanDeliveryRecord(d.pool.QueryRow(ctx, `SELECT `+deliveryLogColumns+deliveryLogFrom+` WHERE d.id = $1`, id))
}

// Requeue implements application.DeliveryLog. The row is locked first, so a
// retry and a payload sweep of the same submission are ordered; the stream's
// version (deliveryStreamVersion) makes two retries of one delivery conflict.
func (d *DeliveryStore) Requeue(ctx context.Context, rec application.DeliveryRecord, e delivery.RetryRequested, md application.Metadata) (application.DeliveryRecord, error) {
	var out application.DeliveryRecord
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		var status string
		var attempts, retries int
		if err := tx.QueryRow(ctx, `SELECT status, attempts, retries FROM deliveries WHERE id = $1 FOR UPDATE`, rec.ID).
			Scan(&status, &attempts, &retries); err != nil {
			return err
		}
		if status != delivery.StateFailed {
			return domain.ErrConcurrency
		}
		if rec.SubmissionID != "" {
			// The payload is pending again: it is not shredded while the
			// retried delivery is under way.
			tag, err := tx.Exec(ctx, `UPDATE submission_payloads SET pending = pending + 1, keep_until = NULL
				WHERE submission_id = $1`, rec.SubmissionID)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return application.ErrPayloadDeleted
			}
		}
		md.CausationID = rec.ID
		state := &pgx.Batch{}
		state.Queue(`
			WITH requeued AS (
				UPDATE deliveries SET status = 'queued', next_attempt_at = $2, finished_at = NULL, claimed_until = NULL, claimed_by = NULL,
				       retries = retries + 1, updated_at = $2
				WHERE id = $1)
			SELECT pg_notify($3, $4)`, rec.ID, e.At, NotifyChannel, DeliveriesDue)
		if err := d.store.AppendWith(ctx, tx, e.At, state, StreamEvents{StreamType: StreamDelivery, StreamID: rec.ID,
			ExpectedVersion: deliveryStreamVersion(attempts, retries), Events: []Event{e}, Metadata: md}); err != nil {
			return err
		}
		// Read before the commit: once committed, a worker may claim and
		// finish the delivery before a later read, and the answer would
		// not be the queued delivery the caller asked for.
		var err error
		out, err = scanDeliveryRecord(tx.QueryRow(ctx, `SELECT `+deliveryLogColumns+deliveryLogFrom+` WHERE d.id = $1`, rec.ID))
		return err
	})
	if err != nil {
		return application.DeliveryRecord{}, err
	}
	return out, nil
}

// ShredExpiredPayloads shreds the sealed payloads kept for a failed delivery
// (settle) once their retention ran out and no retry is under way, and
// records submission.redacted on each; it returns how many. Several
// processes may run it at once: a payload is shredded once.
func (d *DeliveryStore) ShredExpiredPayloads(ctx context.Context, now time.Time) (int, error) {
	return d.shredSelected(ctx, now, `SELECT submission_id::text FROM submission_payloads
		WHERE keep_until < $1 AND pending = 0 AND (archived_until IS NULL OR archived_until < $1)
		ORDER BY submission_id LIMIT 1000 FOR UPDATE SKIP LOCKED`, now)
}

// isUUID reports whether id can name a row: a UUID in its canonical form
// (PostgreSQL refuses some other forms uuid.Validate takes, such as a
// urn:uuid: prefix). Anything else is simply not found, rather than an
// error from PostgreSQL.
func isUUID(id string) bool { return len(id) == 36 && uuid.Validate(id) == nil }
