package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/application"
)

// ClaimDue implements application.DeliveryStore with SKIP LOCKED and a lease
// (claimQuery): its plan walks the claimable index in due order whatever the
// statistics say, and the lease is claimed_until, which no index covers, so
// the claim is a HOT update that leaves next_attempt_at as it was.
// Deliveries in flight stay at the front of the index and are passed over by
// the claimed_until filter: there are at most the claims of the running
// workers. Each claimed delivery comes with its submission's sealed payload,
// read in the same statement.
func (d *DeliveryStore) ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]application.ClaimedDelivery, error) {
	b := &pgx.Batch{}
	queueClaim(b, now, now.Add(lease), limit, d.instance)
	results := d.pool.SendBatch(ctx, b)
	defer results.Close()
	if _, err := results.Exec(); err != nil { // the settings
		return nil, err
	}
	rows, err := results.Query()
	if err != nil {
		return nil, err
	}
	claimed, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (application.ClaimedDelivery, error) {
		var c application.ClaimedDelivery
		var keyID *string
		var key, text []byte
		// created_at is when the delivery was queued: for a submission's,
		// when it was accepted (a webhook's submittedAt, a sheet row's time).
		err := row.Scan(&c.DeliveryID, &c.SubmissionID, &c.FormID, &c.VerificationID, &c.Kind, &c.Test, &c.Attempts, &c.Retries, &c.At,
			&keyID, &key, &text)
		c.At = c.At.UTC()
		if keyID != nil { // a payload row: LEFT JOIN gives none for a redacted submission or a verification mail
			c.Payload = &application.SealedPayload{KeyID: *keyID, WrappedKey: key, Ciphertext: text}
		}
		return c, err
	})
	if err != nil {
		return nil, err
	}
	return claimed, results.Close()
}

// claimQuery claims up to $3 deliveries due at $1 for the instance $4 until
// $2, and reads their payloads. It runs after byKeySettings: a generic plan,
// made once per connection, that walks the claimable index in order and
// looks up only the rows it claims, whatever the statistics said when it was
// made. It is a plain statement rather than a function, whose settings would
// be saved and restored and whose rows stored before they are returned on
// every call. The claim and the payloads are one statement, with one
// snapshot: a payload looked up with a later snapshot than the claim's could
// miss a submission committed in between.
const claimQuery = `
	WITH claimed AS (
		UPDATE deliveries d SET claimed_until = $2::timestamptz, claimed_by = $4::uuid
		WHERE d.id = ANY (ARRAY(SELECT c.id FROM deliveries c
		                        WHERE c.status IN ('queued', 'retrying') AND c.next_attempt_at <= $1::timestamptz
		                          AND (c.claimed_until IS NULL OR c.claimed_until <= $1::timestamptz)
		                        ORDER BY c.next_attempt_at FOR UPDATE SKIP LOCKED LIMIT $3::int))
		RETURNING d.id, d.submission_id, d.form_id, d.verification_id, d.kind, d.test, d.attempts, d.retries, d.created_at)
	SELECT c.id::text, coalesce(c.submission_id::text, ''), coalesce(c.form_id::text, ''),
	       coalesce(c.verification_id::text, ''), c.kind, c.test, c.attempts, c.retries, c.created_at,
	       p.key_id, p.wrapped_key, p.ciphertext
	FROM claimed c LEFT JOIN submission_payloads p ON p.submission_id = c.submission_id`

// queueClaim adds a claim, its settings first, to b, which must hold nothing
// else: sent as one pipeline, they are one implicit transaction.
func queueClaim(b *pgx.Batch, due, leaseUntil time.Time, limit int, instance string) {
	b.Queue(byKeySettings)
	b.Queue(claimQuery, due, leaseUntil, limit, instance)
}
