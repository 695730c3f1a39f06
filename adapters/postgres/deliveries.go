package postgres

import (
	"context"
	"errors"
	"time"

	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// DeliveryStore implements application.DeliveryStore.
type DeliveryStore struct {
	pool  *pgxpool.Pool
	store *EventStore
}

// NewDeliveryStore builds the store.
func NewDeliveryStore(pool *pgxpool.Pool, store *EventStore) *DeliveryStore {
	return &DeliveryStore{pool: pool, store: store}
}

// Payload implements application.DeliveryStore.
func (d *DeliveryStore) Payload(ctx context.Context, submissionID string) (application.SealedPayload, bool, error) {
	var p application.SealedPayload
	err := d.pool.QueryRow(ctx, `SELECT wrapped_key, ciphertext FROM submission_payloads WHERE submission_id = $1`, submissionID).
		Scan(&p.WrappedKey, &p.Ciphertext)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, false, nil
	}
	return p, err == nil, err
}

var systemActor = application.Metadata{Actor: application.Actor{Type: application.ActorSystem, ID: "delivery-worker"}}

// RecordAttempt implements application.DeliveryStore. An attempt someone
// else already recorded (a duplicate run after a lost lease) is ignored.
func (d *DeliveryStore) RecordAttempt(ctx context.Context, q delivery.Queued, attempt int, outcome delivery.Event) error {
	now := time.Now().UTC()
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		md := systemActor
		md.CausationID = q.DeliveryID
		if err := d.store.Append(ctx, tx, now, StreamEvents{StreamType: StreamDelivery, StreamID: q.DeliveryID,
			ExpectedVersion: attempt, Events: []Event{outcome}, Metadata: md}); err != nil {
			return err
		}
		var next *time.Time
		reason := ""
		switch o := outcome.(type) {
		case delivery.AttemptFailed:
			next, reason = &o.NextAt, o.Reason
		case delivery.GaveUp:
			reason = o.Reason
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO deliveries (id, submission_id, form_id, kind, status, attempts, next_attempt_at, last_error, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			ON CONFLICT (id) DO UPDATE SET status = excluded.status, attempts = excluded.attempts,
			    next_attempt_at = excluded.next_attempt_at, last_error = excluded.last_error, updated_at = excluded.updated_at`,
			q.DeliveryID, q.SubmissionID, q.FormID, q.Kind, delivery.Status(outcome), attempt, next, truncate(reason, 500), now); err != nil {
			return err
		}
		if !delivery.Final(outcome) {
			return nil
		}
		return d.settle(ctx, tx, q.SubmissionID, now)
	})
	if errors.Is(err, domain.ErrConcurrency) {
		return nil
	}
	return err
}

// settle counts a delivery as final; after the submission's last one the
// sealed payload is deleted and the redaction recorded.
func (d *DeliveryStore) settle(ctx context.Context, tx pgx.Tx, submissionID string, now time.Time) error {
	var pending int
	err := tx.QueryRow(ctx, `UPDATE submission_payloads SET pending = pending - 1 WHERE submission_id = $1 AND pending > 0
		RETURNING pending`, submissionID).Scan(&pending)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && pending > 0) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM submission_payloads WHERE submission_id = $1`, submissionID); err != nil {
		return err
	}
	md := systemActor
	md.CausationID = submissionID
	return d.store.Append(ctx, tx, now, StreamEvents{StreamType: StreamSubmission, StreamID: submissionID,
		ExpectedVersion: 1, Events: []Event{submission.Redacted{At: now}}, Metadata: md})
}

// ClaimDue implements application.DeliveryStore with SKIP LOCKED and a lease.
func (d *DeliveryStore) ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]application.ClaimedDelivery, error) {
	rows, err := d.pool.Query(ctx, `
		UPDATE deliveries SET next_attempt_at = $2
		WHERE id IN (SELECT id FROM deliveries WHERE status IN ('queued', 'retrying') AND next_attempt_at <= $1
		             ORDER BY next_attempt_at FOR UPDATE SKIP LOCKED LIMIT $3)
		RETURNING id::text, submission_id::text, form_id::text, kind, attempts`, now, now.Add(lease), limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (application.ClaimedDelivery, error) {
		var c application.ClaimedDelivery
		err := row.Scan(&c.DeliveryID, &c.SubmissionID, &c.FormID, &c.Kind, &c.Attempts)
		return c, err
	})
}

// QueueDelivery projects a delivery.queued event into the deliveries table,
// due at once, in the transaction that acknowledges the event (ex). The
// NOTIFY wakes idle delivery workers when that transaction commits.
func QueueDelivery(ctx context.Context, ex Execer, q delivery.Queued) error {
	if _, err := ex.ExecContext(ctx, `
		INSERT INTO deliveries (id, submission_id, form_id, kind, status, attempts, next_attempt_at, updated_at)
		VALUES ($1, $2, $3, $4, 'queued', 0, $5, $5) ON CONFLICT (id) DO NOTHING`,
		q.DeliveryID, q.SubmissionID, q.FormID, q.Kind, q.At); err != nil {
		return err
	}
	_, err := ex.ExecContext(ctx, `SELECT pg_notify($1, 'deliveries')`, NotifyChannel)
	return err
}

// Execer is the statement side of a Watermill SQL transaction.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (wsql.Result, error)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
