package postgres

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/application"
)

// The two ways a group commit reaches the database: one pipeline when
// nothing stands in the way, and a careful transaction that answers each
// submission precisely when something does.

// commit tries the one-round-trip path first; a submission that is not
// admitted or whose Idempotency-Key is already stored fails it as a whole,
// and the careful path then answers each submission. So does a pipeline
// interrupted before it landed, unless the database is away.
func (s *SubmissionStore) commit(ctx context.Context, batch []*pendingSubmission) ([]acceptResult, error) {
	results, err := s.commitPipelined(ctx, batch)
	if err == nil {
		return results, nil
	}
	if errors.Is(err, application.ErrUnavailable) {
		var interrupted *CommitInterruptedError
		if !errors.As(err, &interrupted) || interrupted.Unknown {
			return nil, err
		}
	}
	return s.commitCarefully(ctx, batch)
}

// commitPipelined sends the whole group commit as one pipeline, which
// PostgreSQL runs as one implicit transaction: Idempotency-Keys (a stored
// one violates the key), payloads, deliveries, upload consumptions, events,
// messages, the autoresponders' slots, the NOTIFY and, last, the admission,
// which raises unless every submission is admitted.
func (s *SubmissionStore) commitPipelined(ctx context.Context, batch []*pendingSubmission) ([]acceptResult, error) {
	live := allLive(batch)
	twins := markTwins(batch, live)
	keys, err := keyRowsOf(batch, live)
	if err != nil {
		return nil, err
	}
	writes := &pgx.Batch{}
	if len(keys.idx) > 0 {
		writes.Queue(insertKeys, keys.args()...)
	}
	rows := writeRowsOf(batch, live, s.claimant)
	rows.queuePayloads(writes)
	rows.queueDeliveries(writes, s.store)
	uploadConsumptionsOf(batch, live).queue(writes, time.Now().UTC())
	if err := slotClaimsOf(batch, live).queue(writes); err != nil {
		return nil, err
	}
	b, err := s.store.AppendBatch(time.Now().UTC(), writes, rows.streams...)
	if err != nil {
		return nil, err
	}
	admissionOf(batch, live).queueAdmitAll(b)
	err = s.commitOn(ctx, func(conn *pgx.Conn) ([]string, error) {
		return rows.ids, conn.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return nil, err
	}
	rows.committed(s.store)
	return s.answerTwins(ctx, batch, twins, make([]acceptResult, len(batch))), nil
}

// commitCarefully claims the Idempotency-Keys, consumes the uploads,
// admits the submissions and takes their autoresponders' slots in one
// transaction, commits those that pass and answers the others precisely: a
// refusal takes only its own submission out of the commit.
func (s *SubmissionStore) commitCarefully(ctx context.Context, pending []*pendingSubmission) ([]acceptResult, error) {
	var results []acceptResult
	var twins []int // lost an Idempotency-Key race: answered with the winner's response
	var written writeRows
	// A held autoresponder slot changes a submission for this attempt only:
	// a failed one is retried as it was queued.
	batch := make([]*pendingSubmission, len(pending))
	for i, p := range pending {
		batch[i] = &pendingSubmission{sub: p.sub}
	}
	sent := false // the transaction's work is done and its COMMIT under way
	work := func(tx pgx.Tx) error {
		sent = false
		written = writeRows{}
		results = make([]acceptResult, len(batch))
		live := allLive(batch)
		twins = markTwins(batch, live)
		lost, err := s.claimIdempotencyKeys(ctx, tx, batch, live)
		if err != nil {
			return err
		}
		twins = append(twins, lost...)
		// After the keys: a submission that lost its key to an earlier one
		// is a replay and never consumes an upload or counts.
		claimed := slices.Clone(live)
		if err := s.consumeUploads(ctx, tx, batch, live, results); err != nil {
			return err
		}
		if err := s.admit(ctx, tx, batch, live, results); err != nil {
			return err
		}
		if err := giveBack(ctx, tx, batch, newlyRefused(claimed, live)); err != nil {
			return err
		}
		if err := takeAutoresponderSlots(ctx, tx, batch, live, results); err != nil {
			return err
		}
		rows := writeRowsOf(batch, live, s.claimant)
		if len(rows.ids) == 0 {
			return nil
		}
		payloads := &pgx.Batch{}
		rows.queuePayloads(payloads)
		rows.queueDeliveries(payloads, s.store)
		written = rows
		err = s.store.AppendUnannounced(ctx, tx, time.Now().UTC(), payloads, rows.streams...)
		sent = err == nil
		return err
	}
	err := s.commitOn(ctx, func(conn *pgx.Conn) ([]string, error) {
		err := pgx.BeginFunc(ctx, conn, work)
		if !sent {
			return nil, err
		}
		return written.ids, err
	})
	if err != nil {
		return nil, err
	}
	written.committed(s.store)
	return s.answerTwins(ctx, batch, twins, results), nil
}

// giveBack releases what refused submissions claimed earlier in tx: their
// Idempotency-Keys, so a retry once there is room can commit, and their
// upload keys.
func giveBack(ctx context.Context, tx pgx.Tx, batch []*pendingSubmission, refused []int) error {
	var forms, keys, ids []string
	for _, i := range refused {
		sub := batch[i].sub
		if sub.IdempotencyKey != "" {
			forms, keys = append(forms, sub.FormID), append(keys, sub.IdempotencyKey)
		}
		if len(sub.Uploads) > 0 {
			ids = append(ids, sub.Accepted.SubmissionID)
		}
	}
	if len(keys) > 0 {
		if _, err := tx.Exec(ctx, `DELETE FROM idempotency_keys WHERE (form_id, key) IN
			(SELECT * FROM unnest($1::uuid[], $2::text[]))`, forms, keys); err != nil {
			return err
		}
	}
	return releaseUploads(ctx, tx, ids)
}

// newlyRefused lists the submissions live before a check and not after.
func newlyRefused(before, after []bool) []int {
	var out []int
	for i := range before {
		if before[i] && !after[i] {
			out = append(out, i)
		}
	}
	return out
}

func allLive(batch []*pendingSubmission) []bool {
	live := make([]bool, len(batch))
	for i := range live {
		live[i] = true
	}
	return live
}

// writeRows are the payload rows, queued deliveries and event streams of
// the live submissions.
type writeRows struct {
	streams     []StreamEvents
	ids, forms  []string
	keyIDs      []string
	keys, texts [][]byte
	pending     []int32
	// archivedUntil is each payload's end of archive; nil when its form
	// archives nothing.
	archivedUntil []*time.Time
	// valueHashes is each archived or held payload's search index (the
	// accepted event's value hashes, as JSON); nil for the others.
	valueHashes []*string
	// heldUntil is each held payload's end in the Spam folder; nil when
	// the submission was not held.
	heldUntil  []*time.Time
	deliveries queuedRows
}

func writeRowsOf(batch []*pendingSubmission, live []bool, claimant string) writeRows {
	w := writeRows{deliveries: queuedRows{claimant: claimant}}
	for i, p := range batch {
		if !live[i] {
			continue
		}
		sub := p.sub
		w.streams = append(w.streams, submissionStreams(sub)...)
		w.ids, w.forms = append(w.ids, sub.Accepted.SubmissionID), append(w.forms, sub.FormID)
		w.keyIDs = append(w.keyIDs, sub.Payload.KeyID)
		w.keys, w.texts = append(w.keys, sub.Payload.WrappedKey), append(w.texts, sub.Payload.Ciphertext)
		w.pending = append(w.pending, int32(len(sub.Queued)))
		var archivedUntil, heldUntil *time.Time
		var valueHashes *string
		if !sub.ArchiveUntil.IsZero() || !sub.HeldUntil.IsZero() {
			index := archiveIndex(sub.Accepted.ValueHashes)
			valueHashes = &index
		}
		if !sub.ArchiveUntil.IsZero() {
			until := sub.ArchiveUntil.UTC()
			archivedUntil = &until
		}
		if !sub.HeldUntil.IsZero() {
			until := sub.HeldUntil.UTC()
			heldUntil = &until
		}
		w.archivedUntil = append(w.archivedUntil, archivedUntil)
		w.heldUntil = append(w.heldUntil, heldUntil)
		w.valueHashes = append(w.valueHashes, valueHashes)
		for _, q := range sub.Queued {
			w.deliveries.add(q, sub.ClaimedUntil)
		}
	}
	return w
}

// queueDeliveries writes the submissions' deliveries to the delivery queue
// in the group commit, due at once, rather than leaving them to the queue's
// Watermill consumer group: they are claimable the moment the submissions
// commit, and one multi-row insert replaces a statement per message in the
// consumer, which would be one of the costliest statements of delivery.
func (w writeRows) queueDeliveries(b *pgx.Batch, store *EventStore) {
	if len(w.deliveries.ids) == 0 {
		return
	}
	b.Queue(insertNewDeliveries, w.deliveries.args()...)
	if w.deliveries.unclaimed > 0 {
		store.queueWake(b, DeliveriesDue)
	}
}

// committed wakes the subscribers of the streams and the delivery workers
// once the group commit is durable.
func (w writeRows) committed(store *EventStore) {
	store.Committed(w.streams...)
	if w.deliveries.unclaimed > 0 {
		store.wakeAfterCommit(DeliveriesDue)
	}
}

func (w writeRows) queuePayloads(b *pgx.Batch) {
	b.Queue(`
		INSERT INTO submission_payloads (submission_id, form_id, wrapped_key, ciphertext, pending, key_id, archived_until, value_hashes, held_until)
		SELECT unnest($1::uuid[]), unnest($2::uuid[]), unnest($3::bytea[]), unnest($4::bytea[]), unnest($5::int[]), unnest($6::text[]),
		       unnest($7::timestamptz[]), unnest($8::text[])::jsonb, unnest($9::timestamptz[])`,
		w.ids, w.forms, w.keys, w.texts, w.pending, w.keyIDs, w.archivedUntil, w.valueHashes, w.heldUntil)
}

// submissionStreams are the streams one accepted submission appends to: its
// own, whose submission.accepted queues its deliveries. There is no
// delivery.queued event per delivery: the group commit writes the
// deliveries itself (queueDeliveries), so such an event and its Watermill
// message would be two more rows per delivery that nothing needs.
func submissionStreams(sub application.AcceptedSubmission) []StreamEvents {
	return []StreamEvents{{StreamType: StreamSubmission, StreamID: sub.Accepted.SubmissionID,
		Events: []Event{sub.Accepted}, Metadata: sub.Metadata}}
}
