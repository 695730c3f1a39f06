package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

// Group commit: concurrent submissions share one transaction, so one WAL
// flush makes many of them durable. A worker takes whatever is queued (up to
// maxBatch) as soon as it is free; nothing waits for a batch to fill, and no
// submission is answered before the commit that holds it.
const (
	defaultCommitWorkers = 4
	maxBatch             = 256
)

// SubmissionStore implements application.SubmissionStore with group commit.
type SubmissionStore struct {
	pool    *pgxpool.Pool
	store   *EventStore
	log     *slog.Logger
	queue   chan *pendingSubmission
	workers int
	wg      sync.WaitGroup
	stop    chan struct{}
	once    sync.Once
}

type pendingSubmission struct {
	sub  application.AcceptedSubmission
	done chan acceptResult
}

type acceptResult struct {
	prior *application.StoredResponse
	err   error
}

// NewSubmissionStore starts the commit workers; Close stops them after the
// queue is drained.
func NewSubmissionStore(pool *pgxpool.Pool, store *EventStore, log *slog.Logger) (*SubmissionStore, func()) {
	s := &SubmissionStore{pool: pool, store: store, log: log, queue: make(chan *pendingSubmission, 4*maxBatch),
		workers: defaultCommitWorkers, stop: make(chan struct{})}
	for range s.workers {
		s.wg.Add(1)
		go s.work()
	}
	return s, s.Close
}

// Close drains the queue and stops the workers.
func (s *SubmissionStore) Close() {
	s.once.Do(func() { close(s.stop) })
	s.wg.Wait()
}

// Accept implements application.SubmissionStore. Once queued, it waits for
// the commit even if ctx ends, so its answer is always the truth.
func (s *SubmissionStore) Accept(ctx context.Context, sub application.AcceptedSubmission) (*application.StoredResponse, error) {
	p := &pendingSubmission{sub: sub, done: make(chan acceptResult, 1)}
	select {
	case s.queue <- p:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.stop:
		return nil, errors.New("submission store is closed")
	}
	r := <-p.done
	return r.prior, r.err
}

func (s *SubmissionStore) work() {
	defer s.wg.Done()
	batch := make([]*pendingSubmission, 0, maxBatch)
	for {
		var first *pendingSubmission
		select {
		case first = <-s.queue:
		case <-s.stop:
			select { // drain what is already queued
			case first = <-s.queue:
			default:
				return
			}
		}
		batch = append(batch[:0], first)
	fill:
		for len(batch) < maxBatch {
			select {
			case p := <-s.queue:
				batch = append(batch, p)
			default:
				break fill
			}
		}
		s.commitBatch(batch)
	}
}

// commitBatch commits a batch; if the shared transaction fails, each
// submission is retried alone so one bad row cannot fail its neighbours.
func (s *SubmissionStore) commitBatch(batch []*pendingSubmission) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	results, err := s.commit(ctx, batch)
	if err != nil && len(batch) > 1 {
		s.log.Warn("group commit failed; committing its submissions one by one", "size", len(batch), "err", err)
		for _, p := range batch {
			s.commitBatch([]*pendingSubmission{p})
		}
		return
	}
	for i, p := range batch {
		if err != nil {
			p.done <- acceptResult{err: err}
		} else {
			p.done <- results[i]
		}
	}
}

// commit tries the one-round-trip path first; a form that changed or an
// Idempotency-Key already stored fails it as a whole, and the careful path
// then sorts out each submission.
func (s *SubmissionStore) commit(ctx context.Context, batch []*pendingSubmission) ([]acceptResult, error) {
	if results, err := s.commitPipelined(ctx, batch); err == nil {
		return results, nil
	}
	return s.commitCarefully(ctx, batch)
}

// commitPipelined sends the whole group commit as one pipeline, which
// PostgreSQL runs as one implicit transaction: expected form versions
// (formd_expect_form_versions raises otherwise), Idempotency-Keys (a stored
// one violates the key), payloads, events, messages and the NOTIFY.
func (s *SubmissionStore) commitPipelined(ctx context.Context, batch []*pendingSubmission) ([]acceptResult, error) {
	live := allLive(batch)
	twins := markTwins(batch, live)
	seenForms := map[string]bool{}
	var formIDs []string
	var formVersions []int32
	for i, p := range batch {
		if !live[i] {
			continue
		}
		if !seenForms[p.sub.FormID] {
			seenForms[p.sub.FormID] = true
			formIDs, formVersions = append(formIDs, p.sub.FormID), append(formVersions, int32(p.sub.FormVersion))
		} else if v := formVersions[slices.Index(formIDs, p.sub.FormID)]; int(v) != p.sub.FormVersion {
			return nil, domain.ErrConcurrency // judged against two versions: the careful path sorts it out
		}
	}
	keys, err := keyRowsOf(batch, live)
	if err != nil {
		return nil, err
	}
	writes := &pgx.Batch{}
	writes.Queue(`SELECT formd_expect_form_versions($1::uuid[], $2::int[])`, formIDs, formVersions)
	if len(keys.idx) > 0 {
		writes.Queue(insertKeys, keys.args()...)
	}
	rows := writeRowsOf(batch, live)
	rows.queuePayloads(writes)
	b, err := s.store.AppendBatch(time.Now().UTC(), writes, rows.streams...)
	if err != nil {
		return nil, err
	}
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, err
	}
	return s.answerTwins(ctx, batch, twins, make([]acceptResult, len(batch))), nil
}

// commitCarefully checks versions and keys first and commits only the
// submissions that pass, answering the others precisely.
func (s *SubmissionStore) commitCarefully(ctx context.Context, batch []*pendingSubmission) ([]acceptResult, error) {
	var results []acceptResult
	var live []bool
	var twins []int // lost an Idempotency-Key race: answered with the winner's response
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		results, live = make([]acceptResult, len(batch)), allLive(batch)
		if err := s.checkFormVersions(ctx, tx, batch, live, results); err != nil {
			return err
		}
		twins = markTwins(batch, live)
		lost, err := s.claimIdempotencyKeys(ctx, tx, batch, live)
		if err != nil {
			return err
		}
		twins = append(twins, lost...)
		rows := writeRowsOf(batch, live)
		if len(rows.ids) == 0 {
			return nil
		}
		payloads := &pgx.Batch{}
		rows.queuePayloads(payloads)
		return s.store.AppendWith(ctx, tx, time.Now().UTC(), payloads, rows.streams...)
	})
	if err != nil {
		return nil, err
	}
	return s.answerTwins(ctx, batch, twins, results), nil
}

func allLive(batch []*pendingSubmission) []bool {
	live := make([]bool, len(batch))
	for i := range live {
		live[i] = true
	}
	return live
}

// markTwins takes out of the commit every live submission whose
// Idempotency-Key an earlier one of the batch already carries.
func markTwins(batch []*pendingSubmission, live []bool) []int {
	var twins []int
	seen := map[[2]string]bool{}
	for i, p := range batch {
		if !live[i] || p.sub.IdempotencyKey == "" {
			continue
		}
		k := [2]string{p.sub.FormID, p.sub.IdempotencyKey}
		if seen[k] {
			live[i] = false
			twins = append(twins, i)
		}
		seen[k] = true
	}
	return twins
}

// answerTwins answers each twin with the response stored under its key.
func (s *SubmissionStore) answerTwins(ctx context.Context, batch []*pendingSubmission, twins []int, results []acceptResult) []acceptResult {
	for _, i := range twins {
		prior, err := s.IdempotentResponse(ctx, batch[i].sub.FormID, batch[i].sub.IdempotencyKey)
		if err == nil && prior == nil {
			err = errors.New("idempotency key vanished")
		}
		results[i] = acceptResult{prior: prior, err: err}
	}
	return results
}

// keyRows are the Idempotency-Key rows of the live keyed submissions.
type keyRows struct {
	idx                    []int
	forms, keys, redirects []string
	hashes, responses      [][]byte
}

func keyRowsOf(batch []*pendingSubmission, live []bool) (keyRows, error) {
	var k keyRows
	for i, p := range batch {
		if !live[i] || p.sub.IdempotencyKey == "" {
			continue
		}
		resp, err := json.Marshal(p.sub.Response.Response)
		if err != nil {
			return k, err
		}
		k.idx = append(k.idx, i)
		k.forms, k.keys, k.redirects = append(k.forms, p.sub.FormID), append(k.keys, p.sub.IdempotencyKey), append(k.redirects, p.sub.Response.Redirect)
		k.hashes, k.responses = append(k.hashes, p.sub.Response.RequestHash), append(k.responses, resp)
	}
	return k, nil
}

// insertKeys inserts keyRows.args(); the careful path adds ON CONFLICT.
const insertKeys = `INSERT INTO idempotency_keys (form_id, key, request_hash, response, redirect)
	SELECT * FROM unnest($1::uuid[], $2::text[], $3::bytea[], $4::jsonb[], $5::text[])`

func (k keyRows) args() []any { return []any{k.forms, k.keys, k.hashes, k.responses, k.redirects} }

// writeRows are the payload rows and event streams of the live submissions.
type writeRows struct {
	streams     []StreamEvents
	ids, forms  []string
	keys, texts [][]byte
	pending     []int32
}

func writeRowsOf(batch []*pendingSubmission, live []bool) writeRows {
	var w writeRows
	for i, p := range batch {
		if !live[i] {
			continue
		}
		sub := p.sub
		w.streams = append(w.streams, submissionStreams(sub)...)
		w.ids, w.forms = append(w.ids, sub.Accepted.SubmissionID), append(w.forms, sub.FormID)
		w.keys, w.texts = append(w.keys, sub.Payload.WrappedKey), append(w.texts, sub.Payload.Ciphertext)
		w.pending = append(w.pending, int32(len(sub.Queued)))
	}
	return w
}

func (w writeRows) queuePayloads(b *pgx.Batch) {
	b.Queue(`
		INSERT INTO submission_payloads (submission_id, form_id, wrapped_key, ciphertext, pending)
		SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::bytea[], $4::bytea[], $5::int[])`,
		w.ids, w.forms, w.keys, w.texts, w.pending)
}

// submissionStreams are the streams one accepted submission appends to.
func submissionStreams(sub application.AcceptedSubmission) []StreamEvents {
	streams := []StreamEvents{{StreamType: StreamSubmission, StreamID: sub.Accepted.SubmissionID,
		Events: []Event{sub.Accepted}, Metadata: sub.Metadata}}
	for _, q := range sub.Queued {
		streams = append(streams, StreamEvents{StreamType: StreamDelivery, StreamID: q.DeliveryID,
			Events: []Event{q}, Metadata: sub.Metadata})
	}
	return streams
}

// checkFormVersions refuses submissions judged against a form version that
// is no longer current; the application judges them again.
func (s *SubmissionStore) checkFormVersions(ctx context.Context, tx pgx.Tx, batch []*pendingSubmission, live []bool, results []acceptResult) error {
	seen := map[string]bool{}
	var ids []string
	for _, p := range batch {
		if !seen[p.sub.FormID] {
			seen[p.sub.FormID] = true
			ids = append(ids, p.sub.FormID)
		}
	}
	rows, err := tx.Query(ctx, `SELECT id::text, version FROM forms WHERE id = ANY($1::uuid[])`, ids)
	if err != nil {
		return err
	}
	versions := map[string]int{}
	var id string
	var v int
	if _, err := pgx.ForEachRow(rows, []any{&id, &v}, func() error { versions[id] = v; return nil }); err != nil {
		return err
	}
	for i, p := range batch {
		if versions[p.sub.FormID] != p.sub.FormVersion {
			live[i] = false
			results[i] = acceptResult{err: domain.ErrConcurrency}
		}
	}
	return nil
}

// claimIdempotencyKeys inserts the keys of live submissions; one whose key is
// already stored (by an earlier or a concurrent request) commits nothing and
// is returned, to be answered with the stored response.
func (s *SubmissionStore) claimIdempotencyKeys(ctx context.Context, tx pgx.Tx, batch []*pendingSubmission, live []bool) ([]int, error) {
	k, err := keyRowsOf(batch, live)
	if err != nil || len(k.idx) == 0 {
		return nil, err
	}
	rows, err := tx.Query(ctx, insertKeys+` ON CONFLICT DO NOTHING RETURNING form_id::text, key`, k.args()...)
	if err != nil {
		return nil, err
	}
	claimed := map[[2]string]bool{}
	var f, key string
	if _, err := pgx.ForEachRow(rows, []any{&f, &key}, func() error { claimed[[2]string{f, key}] = true; return nil }); err != nil {
		return nil, err
	}
	var lost []int
	for n, i := range k.idx {
		if !claimed[[2]string{k.forms[n], k.keys[n]}] {
			live[i] = false
			lost = append(lost, i)
		}
	}
	return lost, nil
}

// IdempotentResponse implements application.SubmissionStore. Keys are kept
// for IdempotencyRetention; older ones are pruned and no longer answer.
func (s *SubmissionStore) IdempotentResponse(ctx context.Context, formID, key string) (*application.StoredResponse, error) {
	var out application.StoredResponse
	var resp []byte
	err := s.pool.QueryRow(ctx, `SELECT request_hash, response, redirect FROM idempotency_keys
		WHERE form_id = $1 AND key = $2 AND created_at > now() - $3::interval`, formID, key, IdempotencyRetention.String()).
		Scan(&out.RequestHash, &resp, &out.Redirect)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &out, json.Unmarshal(resp, &out.Response)
}

// IdempotencyRetention is how long an Idempotency-Key answers retries.
const IdempotencyRetention = 48 * time.Hour

// PruneIdempotencyKeys deletes keys older than IdempotencyRetention.
func PruneIdempotencyKeys(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	tag, err := pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < now() - $1::interval`, IdempotencyRetention.String())
	return tag.RowsAffected(), err
}
