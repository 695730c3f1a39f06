package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/adapters/postgres/eventcodec"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// The Spam folder is the held payloads of submission_payloads (held_until
// set): a held submission has no delivery row until it is released, when
// the deliveries its submission.accepted planned are written queued.

// heldColumns are a HeldSubmission's, from submission_payloads p and its
// submission.accepted event e.
const heldColumns = `p.submission_id::text, coalesce(e.data->>'requestId', ''), coalesce((e.data->>'formVersion')::int, 0),
	coalesce(e.data->'fieldNames', '[]'::jsonb),
	p.created_at, p.held_until, p.key_id, p.wrapped_key, p.ciphertext`

// heldFrom are the held payloads of form $1.
const heldFrom = ` FROM submission_payloads p
	LEFT JOIN events e ON e.stream_id = p.submission_id AND e.version = 1 AND e.event_type = '` + submission.AcceptedType + `'
	WHERE p.form_id = $1 AND p.held_until IS NOT NULL`

func scanHeld(row pgx.Row) (application.HeldSubmission, error) {
	var s application.HeldSubmission
	var names []byte
	err := row.Scan(&s.SubmissionID, &s.RequestID, &s.FormVersion, &names, &s.HeldAt, &s.Until, &s.Sealed.KeyID, &s.Sealed.WrappedKey, &s.Sealed.Ciphertext)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, domain.ErrNotFound
	}
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(names, &s.FieldNames)
}

// HeldPage implements application.SpamFolder with a keyset page on the
// submission_payloads_held_page index.
func (d *DeliveryStore) HeldPage(ctx context.Context, formID string, after *application.ArchiveCursor, limit int) ([]application.HeldSubmission, error) {
	if !isUUID(formID) {
		return nil, nil
	}
	args := []any{formID, limit}
	where := ""
	if after != nil {
		where, args = ` AND (p.created_at, p.submission_id) < ($3::timestamptz, $4::uuid)`, append(args, after.At, after.ID)
	}
	rows, err := d.pool.Query(ctx, `SELECT `+heldColumns+heldFrom+where+`
		ORDER BY p.created_at DESC, p.submission_id DESC LIMIT $2`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []application.HeldSubmission
	for rows.Next() {
		s, err := scanHeld(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// HeldCount implements application.SpamFolder.
func (d *DeliveryStore) HeldCount(ctx context.Context, formID string) (int, error) {
	if !isUUID(formID) {
		return 0, nil
	}
	var n int
	err := d.pool.QueryRow(ctx, `SELECT count(*) FROM submission_payloads WHERE form_id = $1 AND held_until IS NOT NULL`, formID).Scan(&n)
	return n, err
}

// HeldSubmission implements application.SpamFolder.
func (d *DeliveryStore) HeldSubmission(ctx context.Context, formID, submissionID string) (application.HeldSubmission, error) {
	if !isUUID(formID) || !isUUID(submissionID) {
		return application.HeldSubmission{}, domain.ErrNotFound
	}
	return scanHeld(d.pool.QueryRow(ctx, `SELECT `+heldColumns+heldFrom+` AND p.submission_id = $2`, formID, submissionID))
}

// Release implements application.SpamFolder: in one transaction it locks
// the held payload, writes the deliveries its submission.accepted planned
// (queued, due now, unclaimed) and makes the payload an ordinary one, then
// wakes the delivery workers.
func (d *DeliveryStore) Release(ctx context.Context, formID, submissionID string, archiveUntil, now time.Time) ([]delivery.Queued, error) {
	if !isUUID(formID) || !isUUID(submissionID) {
		return nil, domain.ErrNotFound
	}
	var queued []delivery.Queued
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		var stored eventcodec.Stored
		err := tx.QueryRow(ctx, `SELECT e.event_type, e.schema_version, e.data FROM submission_payloads p
			JOIN events e ON e.stream_id = p.submission_id AND e.version = 1
			WHERE p.submission_id = $1 AND p.form_id = $2 AND p.held_until IS NOT NULL FOR UPDATE OF p`,
			submissionID, formID).Scan(&stored.Type, &stored.SchemaVersion, &stored.Data)
		if errors.Is(err, pgx.ErrNoRows) {
			return domain.ErrNotFound
		}
		if err != nil {
			return err
		}
		e, err := eventcodec.Decode(stored)
		if err != nil {
			return err
		}
		accepted, ok := e.(submission.Accepted)
		if !ok {
			return fmt.Errorf("postgres: held submission %s starts with %s, not %s", submissionID, stored.Type, submission.AcceptedType)
		}
		rows := queuedRows{}
		queued = make([]delivery.Queued, len(accepted.Deliveries))
		for i, ref := range accepted.Deliveries {
			queued[i] = delivery.Queued{DeliveryID: ref.ID, SubmissionID: submissionID, FormID: formID, Kind: ref.Kind, Target: ref.Target, At: now}
			rows.add(queued[i], time.Time{})
		}
		b := &pgx.Batch{}
		if len(queued) > 0 {
			b.Queue(insertNewDeliveries, rows.args()...)
			d.store.queueWake(b, DeliveriesDue)
		}
		var until *time.Time
		if !archiveUntil.IsZero() {
			u := archiveUntil.UTC()
			until = &u
		}
		// A payload that is not archived keeps no search index.
		b.Queue(`UPDATE submission_payloads SET held_until = NULL, pending = $2, archived_until = $3,
			value_hashes = CASE WHEN $3::timestamptz IS NULL THEN NULL ELSE value_hashes END
			WHERE submission_id = $1`, submissionID, len(queued), until)
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return nil, err
	}
	if len(queued) > 0 {
		d.store.wakeAfterCommit(DeliveriesDue)
	}
	return queued, nil
}

// ShredHeld implements application.SpamFolder: it shreds the held payload
// as a final delivery shreds any (redact).
func (d *DeliveryStore) ShredHeld(ctx context.Context, formID, submissionID string, now time.Time) error {
	if !isUUID(formID) || !isUUID(submissionID) {
		return domain.ErrNotFound
	}
	n, err := d.shredSelected(ctx, now, `SELECT submission_id::text FROM submission_payloads
		WHERE submission_id = $1 AND form_id = $2 AND held_until IS NOT NULL FOR UPDATE`, submissionID, formID)
	if err == nil && n == 0 {
		return domain.ErrNotFound
	}
	return err
}

// ShredExpiredHeld implements application.SpamFolder: rows another process
// is shredding are skipped (SKIP LOCKED), so processes share the work.
func (d *DeliveryStore) ShredExpiredHeld(ctx context.Context, now time.Time, limit int) (int, error) {
	return d.shredSelected(ctx, now, `SELECT submission_id::text FROM submission_payloads
		WHERE held_until < $1 ORDER BY held_until LIMIT $2 FOR UPDATE SKIP LOCKED`, now, limit)
}
