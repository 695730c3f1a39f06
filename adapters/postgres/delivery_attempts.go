package postgres

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

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
		if _, err := pgx.ForEachRow(rows, []any{&p.id, &p.pending, &p.failed, &p.deleted, &p.archived}, func() error {
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
		statuses, errs = append(statuses, delivery.Status(a.Outcome)), append(errs, domain.Truncate(reason, 500))
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
	// archived: the form's archive keeps the payload until its
	// archived_until, when ShredArchivedPayloads shreds it.
	archived bool
}

// settled turns settlePayloads' answer into the second pipeline of a record:
// a submission with no delivery left pending loses its sealed payload and
// records submission.redacted, unless one of its deliveries failed: then the
// payload is kept for the retention (delivery.PayloadKeptUntil), so the
// delivery can be retried, and ShredExpiredPayloads shreds it after that. An
// archived payload is kept either way (ShredArchivedPayloads shreds it once
// its archive ends), with a failed delivery's hold beside it. It returns the
// pipeline and the streams it appends to.
func (d *DeliveryStore) settled(rows []settledPayload, now time.Time) (*pgx.Batch, []StreamEvents, error) {
	var done, kept, shredded []string
	for _, p := range rows {
		switch {
		case p.deleted:
			shredded = append(shredded, p.id)
		case p.pending > 0:
		case p.archived:
			if _, keep := delivery.PayloadKeptUntil(p.failed, now, d.retention); keep {
				kept = append(kept, p.id)
			}
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
// payload whose last pending deliveries these are, none of them failed and
// the payload not archived (archived_until, a column of the row it reads
// anyway), is deleted at once (deleted true): a submission with one delivery, the common
// case, costs one delete rather than an update writing a new row version and
// then a delete. The others are counted down and say how many are still
// pending and whether one failed; a concurrent settle of the same submission
// waits on the row and counts from the committed value.
//
// It runs after byKeySettings, which give it a generic plan, made once per
// connection, that reads every row by key at any table size; without them
// the plan cache would re-plan it on about half of its calls. It is a plain
// statement rather than a function: a function's settings are saved and
// restored on every call, which costs more than the work (see
// docs/performance.md). The failed check is a scalar subquery per settled
// row through deliveries_submission; written as EXISTS, the planner may hash
// it instead, one scan of every failed delivery per call, which grows with
// the table.
const settlePayloads = `
	WITH f AS (SELECT * FROM unnest($1::uuid[], $2::int[]) AS f(id, n)),
	shredded AS (
		DELETE FROM submission_payloads p USING f
		WHERE p.submission_id = f.id AND p.pending <= f.n AND p.archived_until IS NULL
		  AND NOT coalesce((SELECT true FROM deliveries d WHERE d.submission_id = p.submission_id AND d.status = 'failed' LIMIT 1), false)
		RETURNING p.submission_id),
	counted AS (
		UPDATE submission_payloads p SET pending = greatest(p.pending - f.n, 0)
		FROM f WHERE p.submission_id = f.id AND p.submission_id NOT IN (SELECT s.submission_id FROM shredded s)
		RETURNING p.submission_id, p.pending,
		          coalesce((SELECT true FROM deliveries d WHERE d.submission_id = p.submission_id AND d.status = 'failed' LIMIT 1), false) AS failed,
		          p.archived_until IS NOT NULL AS archived)
	SELECT s.submission_id::text, 0, false, true, false FROM shredded s
	UNION ALL
	SELECT c.submission_id::text, c.pending, c.failed, false, c.archived FROM counted c`

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
