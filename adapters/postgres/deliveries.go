package postgres

import (
	"context"
	"errors"
	"slices"
	"time"
	"unicode/utf8"

	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/google/uuid"
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
	// instance names this process's claims; its heartbeat says it is alive.
	instance string
	// retention is how long a submission with a failed delivery keeps its
	// sealed payload (FORMD_FAILED_PAYLOAD_RETENTION).
	retention time.Duration
}

// NewDeliveryStore builds the store for one process, keeping the payloads of
// submissions with a failed delivery for delivery.DefaultFailedPayloadRetention.
func NewDeliveryStore(pool *pgxpool.Pool, store *EventStore) *DeliveryStore {
	return &DeliveryStore{pool: pool, store: store, instance: uuid.NewString(), retention: delivery.DefaultFailedPayloadRetention}
}

// WithFailedPayloadRetention sets how long a submission with a failed
// delivery keeps its sealed payload; 0 shreds it as soon as every delivery
// is final.
func (d *DeliveryStore) WithFailedPayloadRetention(r time.Duration) *DeliveryStore {
	d.retention = r
	return d
}

// Process liveness: how often a process says it is alive, and how long
// without a word counts as dead.
const (
	HeartbeatInterval = 2 * time.Second
	DeadAfter         = 10 * time.Second
)

// Heartbeat records that this process is alive, so its claims are kept.
func (d *DeliveryStore) Heartbeat(ctx context.Context, now time.Time) error {
	_, err := d.pool.Exec(ctx, `INSERT INTO delivery_workers (instance_id, seen_at) VALUES ($1, $2)
		ON CONFLICT (instance_id) DO UPDATE SET seen_at = EXCLUDED.seen_at`, d.instance, now)
	return err
}

// ReleaseDeadClaims makes the deliveries claimed by processes that stopped
// beating due again at once, and forgets those processes, in one statement:
// a process killed mid-claim delays its deliveries by DeadAfter, not by the
// lease. (A live process's claims are never released: a slow send is not a
// dead process.)
func (d *DeliveryStore) ReleaseDeadClaims(ctx context.Context, now time.Time) (int64, error) {
	tag, err := d.pool.Exec(ctx, `
		WITH dead AS (DELETE FROM delivery_workers WHERE seen_at < $1 RETURNING instance_id)
		UPDATE deliveries SET next_attempt_at = least(next_attempt_at, $2), claimed_until = NULL, claimed_by = NULL
		WHERE claimed_by IN (SELECT instance_id FROM dead) AND status IN ('queued', 'retrying')`,
		now.Add(-DeadAfter), now)
	return tag.RowsAffected(), err
}

// Leave forgets this process at a clean shutdown and releases what it still
// holds claimed (nothing, once its workers have finished).
func (d *DeliveryStore) Leave(ctx context.Context, now time.Time) error {
	_, err := d.pool.Exec(ctx, `
		WITH gone AS (DELETE FROM delivery_workers WHERE instance_id = $1 RETURNING instance_id)
		UPDATE deliveries SET next_attempt_at = least(next_attempt_at, $2), claimed_until = NULL, claimed_by = NULL
		WHERE claimed_by = $1 AND status IN ('queued', 'retrying')`, d.instance, now)
	return err
}

// deliveryStreamVersion is the version a delivery's stream is at once it
// was queued and has recorded the outcomes of attempts attempts and retries
// manual retries: version 1 is the queuing, then one event per attempt and
// per retry. A delivery queued by
// its own delivery.queued holds that event at version 1; a submission's
// delivery is queued by the submission's submission.accepted, in the
// submission's stream, so its own stream starts at version 2.
func deliveryStreamVersion(attempts, retries int) int { return 1 + attempts + retries }

var systemActor = application.Metadata{Actor: application.Actor{Type: application.ActorSystem, ID: "delivery-worker"}}

// RecordAttempts implements application.DeliveryStore. When one attempt of
// the group was already recorded elsewhere, the group falls back to one
// transaction per attempt so the others still land.
func (d *DeliveryStore) RecordAttempts(ctx context.Context, attempts []application.Attempt) error {
	if len(attempts) == 0 {
		return nil
	}
	err := d.recordInTx(ctx, attempts)
	if !errors.Is(err, domain.ErrConcurrency) {
		return err
	}
	for _, a := range attempts {
		err := d.recordInTx(ctx, []application.Attempt{a})
		if err != nil && !errors.Is(err, domain.ErrConcurrency) {
			return err
		}
	}
	return nil
}

// recordInTx records attempts in a transaction of their own, sent as two
// pipelines, and wakes the subscribers of what it appended once it commits.
//
// The first pipeline opens the transaction and writes the outcomes (their
// state, events and messages) and counts the final ones off their
// submissions' payloads (settlePayloads); the second shreds what that
// answered, records submission.redacted and commits. As pgx.BeginFunc with
// a statement per step it would be five round trips (BEGIN, outcomes,
// settle, redaction, COMMIT), each waited for by the process's one recorder.
func (d *DeliveryStore) recordInTx(ctx context.Context, attempts []application.Attempt) error {
	now := time.Now().UTC()
	opening := &pgx.Batch{}
	opening.Queue("BEGIN")
	streams, finals := queueOutcomes(opening, attempts, now)
	first, err := d.store.AppendBatch(now, opening, streams...)
	if err != nil {
		return err
	}
	if first == nil { // no outcome event: nothing was attempted
		return nil
	}
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// A connection given back inside a transaction is closed by the pool,
	// so no failure below can leak one.
	defer conn.Release()
	var subs []string
	var counts []int32
	for id, n := range finals {
		subs, counts = append(subs, id), append(counts, n)
	}
	if len(subs) > 0 {
		queueSettle(first, subs, counts)
	}
	settled, err := sendFirst(ctx, conn, first, len(subs) > 0)
	if err != nil {
		rollback(conn)
		return err
	}
	second, redacted, err := d.settled(settled, now)
	if err != nil {
		rollback(conn)
		return err
	}
	second.Queue("COMMIT")
	if err := sendAppend(ctx, conn, second); err != nil {
		rollback(conn)
		return err
	}
	d.store.Committed(append(streams, redacted...)...)
	return nil
}

// sendFirst sends the first pipeline of a record and, when it ends with
// settlePayloads (settles), reads what that answered.
func sendFirst(ctx context.Context, conn *pgxpool.Conn, b *pgx.Batch, settles bool) ([]settledPayload, error) {
	results := conn.SendBatch(ctx, b)
	execs := b.Len()
	if settles {
		execs--
	}
	for range execs {
		if _, err := results.Exec(); err != nil {
			_ = results.Close()
			return nil, appendError(err)
		}
	}
	var settled []settledPayload
	if settles {
		rows, err := results.Query()
		if err != nil {
			_ = results.Close()
			return nil, err
		}
		var p settledPayload
		if _, err := pgx.ForEachRow(rows, []any{&p.id, &p.pending, &p.failed, &p.deleted}, func() error {
			settled = append(settled, p)
			return nil
		}); err != nil {
			_ = results.Close()
			return nil, err
		}
	}
	return settled, results.Close()
}

// rollback ends a failed record's transaction, if the connection still
// answers; if it does not, the pool closes it on release.
func rollback(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = conn.Exec(ctx, "ROLLBACK")
}

// queueOutcomes adds to b the statement that writes the attempts' state and
// returns their outcome events (one stream each) and the count of final
// deliveries per submission.
func queueOutcomes(b *pgx.Batch, attempts []application.Attempt, now time.Time) ([]StreamEvents, map[string]int32) {
	var (
		streams                                       []StreamEvents
		ids, subs, forms, vers, kinds, statuses, errs []string
		numbers                                       []int32
		tests                                         []bool
		nexts, finished                               []*time.Time
		finals                                        = map[string]int32{}
	)
	for _, a := range attempts {
		q := a.Queued
		md := systemActor
		md.CausationID = q.DeliveryID
		streams = append(streams, StreamEvents{StreamType: StreamDelivery, StreamID: q.DeliveryID,
			ExpectedVersion: deliveryStreamVersion(a.Number-1, a.Retries), Events: []Event{a.Outcome}, Metadata: md})
		var next *time.Time
		reason := ""
		switch o := a.Outcome.(type) {
		case delivery.AttemptFailed:
			next, reason = &o.NextAt, o.Reason
		case delivery.GaveUp:
			reason = o.Reason
		}
		ids, subs, forms, kinds = append(ids, q.DeliveryID), append(subs, q.SubmissionID), append(forms, q.FormID), append(kinds, q.Kind)
		vers, tests = append(vers, q.VerificationID), append(tests, q.Test)
		statuses, errs = append(statuses, delivery.Status(a.Outcome)), append(errs, truncate(reason, 500))
		numbers, nexts = append(numbers, int32(a.Number)), append(nexts, next)
		var done *time.Time
		if delivery.Final(a.Outcome) {
			done = &now
		}
		finished = append(finished, done)
		// Only a submission's deliveries hold its payload; a verification
		// mail has none to redact.
		if delivery.Final(a.Outcome) && q.SubmissionID != "" {
			finals[q.SubmissionID]++
		}
	}
	b.Queue(`
		INSERT INTO deliveries (id, submission_id, form_id, verification_id, kind, status, attempts, next_attempt_at, last_error,
		                        updated_at, created_at, finished_at, test)
		SELECT d.id, NULLIF(d.sub, '')::uuid, NULLIF(d.form, '')::uuid, NULLIF(d.ver, '')::uuid, d.kind, d.status, d.attempts,
		       d.next, d.err, $10::timestamptz, $10::timestamptz, d.fin, d.test
		FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[],
		            $8::timestamptz[], $9::text[], $11::timestamptz[], $12::bool[])
		     AS d(id, sub, form, ver, kind, status, attempts, next, err, fin, test)
		ON CONFLICT (id) DO UPDATE SET status = excluded.status, attempts = excluded.attempts,
		    next_attempt_at = excluded.next_attempt_at, last_error = excluded.last_error, updated_at = excluded.updated_at,
		    finished_at = excluded.finished_at, claimed_until = NULL, claimed_by = NULL`,
		ids, subs, forms, vers, kinds, statuses, numbers, nexts, errs, now, finished, tests)
	return streams, finals
}

// settledPayload is one row of settlePayloads' answer.
type settledPayload struct {
	id              string
	pending         int
	failed, deleted bool
}

// settled turns settlePayloads' answer into the second pipeline of a record:
// a submission with no delivery left pending loses its sealed payload and
// records submission.redacted, unless one of its deliveries failed: then the
// payload is kept for the retention (delivery.PayloadKeptUntil), so the
// delivery can be retried, and ShredExpiredPayloads shreds it after that. It
// returns the pipeline and the streams it appends to.
func (d *DeliveryStore) settled(rows []settledPayload, now time.Time) (*pgx.Batch, []StreamEvents, error) {
	var done, kept, shredded []string
	for _, p := range rows {
		switch {
		case p.deleted:
			shredded = append(shredded, p.id)
		case p.pending > 0:
		default:
			if _, keep := delivery.PayloadKeptUntil(p.failed, now, d.retention); keep {
				kept = append(kept, p.id)
			} else {
				done = append(done, p.id)
			}
		}
	}
	b := &pgx.Batch{}
	if len(kept) > 0 {
		until, _ := delivery.PayloadKeptUntil(true, now, d.retention)
		b.Queue(`UPDATE submission_payloads SET keep_until = $2 WHERE submission_id = ANY($1::uuid[])`, kept, until)
	}
	return d.redactBatch(b, done, shredded, now)
}

// settlePayloads counts final deliveries off their submissions' payloads. A
// payload whose last pending deliveries these are, none of them failed, is
// deleted at once (deleted true): a submission with one delivery, the common
// case, costs one delete rather than an update writing a new row version and
// then a delete. The others are counted down and say how many are still
// pending and whether one failed; a concurrent settle of the same submission
// waits on the row and counts from the committed value.
//
// It is the body of formd_settle_payloads (migration 00028), sent as a
// statement of its own after byKeySettings, which give it what the
// function's settings did: a generic plan, made once per connection, that
// reads every row by key at any table size. As a statement without them,
// the plan cache would re-plan it on about half of its calls. Called
// through the function, whose three settings are saved and restored on
// every call, it would cost far more than the statement within it (the
// admission is a statement for the same reason, migration 00030; see
// docs/performance.md). The function
// stays for a formd of an older version running beside this one. The failed
// check is a scalar subquery per settled row through deliveries_submission;
// written as EXISTS, the planner may hash it instead, one scan of every
// failed delivery per call, which grows with the table.
const settlePayloads = `
	WITH f AS (SELECT * FROM unnest($1::uuid[], $2::int[]) AS f(id, n)),
	shredded AS (
		DELETE FROM submission_payloads p USING f
		WHERE p.submission_id = f.id AND p.pending <= f.n
		  AND NOT coalesce((SELECT true FROM deliveries d WHERE d.submission_id = p.submission_id AND d.status = 'failed' LIMIT 1), false)
		RETURNING p.submission_id),
	counted AS (
		UPDATE submission_payloads p SET pending = greatest(p.pending - f.n, 0)
		FROM f WHERE p.submission_id = f.id AND p.submission_id NOT IN (SELECT s.submission_id FROM shredded s)
		RETURNING p.submission_id, p.pending,
		          coalesce((SELECT true FROM deliveries d WHERE d.submission_id = p.submission_id AND d.status = 'failed' LIMIT 1), false) AS failed)
	SELECT s.submission_id::text, 0, false, true FROM shredded s
	UNION ALL
	SELECT c.submission_id::text, c.pending, c.failed, false FROM counted c`

// byKeySettings are the planner settings of a statement that must read by
// key at any table size, set for the rest of its transaction: its plan is
// generic, made once per connection, and uses no sequential or bitmap scan
// whatever the statistics said when it was made. In a record's transaction
// what follows the settle (the redaction's deletes by key and its appends)
// reads nothing but by key either; a claim's holds nothing else.
const byKeySettings = `SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true),
	set_config('plan_cache_mode', 'force_generic_plan', true)`

// queueSettle adds settlePayloads, with its settings before it, to a
// record's first pipeline, whose last statements they must be (sendFirst
// reads the last one's rows).
func queueSettle(b *pgx.Batch, subs []string, counts []int32) {
	b.Queue(byKeySettings)
	b.Queue(settlePayloads, subs, counts)
}

// redact shreds the payloads of submissions (done) and records
// submission.redacted on each of them and of those already shredded, in tx;
// it returns the streams appended to, whose subscribers the caller wakes
// after the commit.
func (d *DeliveryStore) redact(ctx context.Context, tx pgx.Tx, done, shredded []string, now time.Time) ([]StreamEvents, error) {
	b, streams, err := d.redactBatch(&pgx.Batch{}, done, shredded, now)
	if err != nil || len(streams) == 0 {
		return nil, err
	}
	return streams, sendAppend(ctx, tx, b)
}

// redactBatch adds redact's statements to shred, which it returns as it is
// when there is nothing to redact, and returns the streams they append to.
func (d *DeliveryStore) redactBatch(shred *pgx.Batch, done, shredded []string, now time.Time) (*pgx.Batch, []StreamEvents, error) {
	if len(done)+len(shredded) == 0 {
		return shred, nil, nil
	}
	if len(done) > 0 {
		shred.Queue(`DELETE FROM submission_payloads WHERE submission_id = ANY($1::uuid[])`, done)
	}
	all := append(slices.Clone(done), shredded...)
	streams := make([]StreamEvents, len(all))
	for i, id := range all {
		md := systemActor
		md.CausationID = id
		streams[i] = StreamEvents{StreamType: StreamSubmission, StreamID: id, ExpectedVersion: 1,
			Events: []Event{submission.Redacted{At: now}}, Metadata: md}
	}
	b, err := d.store.AppendBatch(now, shred, streams...)
	return b, streams, err
}

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
// $2, and reads their payloads. It is the statement of
// formd_claim_deliveries_with_payloads (migration 00027), sent after
// byKeySettings, which give it what the function's settings did (migrations
// 00024 and 00025 say why): a generic plan, made once per connection, that
// walks the claimable index in order and looks up only the rows it claims,
// whatever the statistics said when it was made. Called through the function,
// whose three settings are saved and restored and whose rows are stored
// before they are returned, a claim would cost markedly more than its
// statement. The claim and the payloads are one statement, with one snapshot:
// a payload looked up with a later snapshot than the claim's could miss a
// submission committed in between (migration 00027). The function stays for
// a formd of an older version running beside this one.
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

// DeliveryQueue implements application.DeliveryQueue: the deliveries table,
// written in the transaction of the Watermill message being handled.
type DeliveryQueue struct{}

// NewDeliveryQueue builds the queue.
func NewDeliveryQueue() *DeliveryQueue { return &DeliveryQueue{} }

// Queue implements application.DeliveryQueue. It finds the transaction that
// acknowledges the message on ctx (watermill-sql puts it there), so the
// delivery is queued if and only if the message is acknowledged.
func (DeliveryQueue) Queue(ctx context.Context, q delivery.Queued) error {
	tx, ok := wsql.TxFromContext(ctx)
	if !ok {
		return errors.New("queueing a delivery needs the transaction of the message being handled")
	}
	return queueDelivery(ctx, tx, q)
}

// queueDelivery projects a delivery.queued event into the deliveries table,
// due at once, in the transaction that acknowledges the event (ex). The
// NOTIFY wakes idle delivery workers when that transaction commits.
func queueDelivery(ctx context.Context, ex Execer, q delivery.Queued) error {
	var rows queuedRows
	rows.add(q, time.Time{})
	// One statement, one round trip: the insert and the wake-up.
	_, err := ex.ExecContext(ctx, `WITH queued AS (`+insertQueued+`) SELECT pg_notify($11, $12)`,
		append(rows.args(), NotifyChannel, DeliveriesDue)...)
	return err
}

// insertNewDeliveries writes queued deliveries ($1-$10: queuedRows.args),
// due when they were queued, each unclaimed or claimed until a time by the
// claimant, $10 (a submission's deliveries that its commit hands to this
// process's workers: application.DeliveryHandOff). The group commit writes
// a batch's deliveries with it: their ids are new, so it takes no
// ON CONFLICT, whose speculative insertion would be a sizeable share of the
// statement's cost (an existing id fails the commit instead).
// Its arrays are unnested in the select list, as the events' are
// (EventStore.appendBatch).
const insertNewDeliveries = `
	INSERT INTO deliveries (id, submission_id, form_id, verification_id, kind, target, test, status, attempts, next_attempt_at,
	                        updated_at, created_at, claimed_until, claimed_by)
	SELECT d.id, NULLIF(d.sub, '')::uuid, NULLIF(d.form, '')::uuid, NULLIF(d.ver, '')::uuid, d.kind, d.target, d.test,
	       'queued', 0, d.at, d.at, d.at, d.until, CASE WHEN d.until IS NOT NULL THEN NULLIF($10::text, '')::uuid END
	FROM (SELECT unnest($1::uuid[]) AS id, unnest($2::text[]) AS sub, unnest($3::text[]) AS form, unnest($4::text[]) AS ver,
	             unnest($5::text[]) AS kind, unnest($6::text[]) AS target, unnest($7::bool[]) AS test,
	             unnest($8::timestamptz[]) AS at, unnest($9::timestamptz[]) AS until) AS d`

// insertQueued is insertNewDeliveries for the delivery queue's consumer,
// which writes the deliveries of delivery.queued events one at a time: one
// already written (a message handled twice) is left as it is.
const insertQueued = insertNewDeliveries + `
	ON CONFLICT (id) DO NOTHING`

// queuedRows are queued deliveries as the columns insertNewDeliveries and
// insertQueued take.
type queuedRows struct {
	ids, subs, forms, vers, kinds, targets []string
	tests                                  []bool
	at                                     []time.Time
	claimedUntil                           []*time.Time
	// claimant is the process the claimed rows are claimed by.
	claimant string
	// unclaimed counts the rows no process claims: the delivery workers
	// must be woken for them.
	unclaimed int
}

// add adds q, claimed by the claimant until until (no claim: the zero time).
func (r *queuedRows) add(q delivery.Queued, until time.Time) {
	r.ids, r.subs, r.forms, r.vers = append(r.ids, q.DeliveryID), append(r.subs, q.SubmissionID), append(r.forms, q.FormID), append(r.vers, q.VerificationID)
	r.kinds, r.targets = append(r.kinds, q.Kind), append(r.targets, q.Target)
	r.tests, r.at = append(r.tests, q.Test), append(r.at, q.At)
	var claimed *time.Time
	if !until.IsZero() {
		claimed = &until
	} else {
		r.unclaimed++
	}
	r.claimedUntil = append(r.claimedUntil, claimed)
}

func (r queuedRows) args() []any {
	return []any{r.ids, r.subs, r.forms, r.vers, r.kinds, r.targets, r.tests, r.at, r.claimedUntil, r.claimant}
}

// DeliveriesDue is the NOTIFY payload that wakes idle delivery workers.
const DeliveriesDue = "deliveries-due"

// Execer is the statement side of a Watermill SQL transaction.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (wsql.Result, error)
}

// truncate cuts s to at most n bytes on a character boundary: PostgreSQL
// refuses text that ends inside a UTF-8 sequence.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
