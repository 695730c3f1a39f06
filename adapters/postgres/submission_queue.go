package postgres

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
)

// Group commit: concurrent submissions share one transaction, so one WAL
// flush makes many of them durable. A worker takes whatever is queued (up to
// maxBatch) as soon as it is free; nothing waits for a batch to fill, and no
// submission is answered before the commit that holds it.
//
// Each worker has a lane of its own, and an account's submissions always
// take the same lane. The commit locks the account's quota row from its
// charge until the commit's WAL flush is done, so two workers committing
// for one account took turns on that lock (pg_stat_statements showed the
// quota charge waiting for most of its 1.7 ms per call); in one lane the
// account's submissions share a batch and one flush instead.
const (
	defaultCommitWorkers = 4
	maxBatch             = 256
)

// SubmissionStore implements application.SubmissionStore with group commit.
type SubmissionStore struct {
	pool    *pgxpool.Pool
	store   *EventStore
	log     *slog.Logger
	lanes   []chan *pendingSubmission
	wg      sync.WaitGroup
	stop    chan struct{}
	once    sync.Once
	commits CommitObserver
	// claimant is the process that a submission's handed-off deliveries
	// are written claimed by (application.DeliveryHandOff): the delivery
	// store's, whose heartbeat keeps its claims.
	claimant string
}

// CommitObserver hears about each group commit: how many submissions it
// carried and how long committing them took. It is called on the commit
// path, so it must be cheap.
type CommitObserver interface {
	ObserveCommit(size int, took time.Duration)
}

type noCommitObserver struct{}

func (noCommitObserver) ObserveCommit(int, time.Duration) {}

type pendingSubmission struct {
	sub  application.AcceptedSubmission
	done chan acceptResult
}

type acceptResult struct {
	prior *application.StoredResponse
	err   error
}

// NewSubmissionStore starts the commit workers; Close stops them after the
// queue is drained. The deliveries a submission hands off
// (AcceptedSubmission.ClaimedUntil) are written claimed by the process of
// deliveries, so no other process claims them and that process's leaving or
// death releases them like its other claims.
func NewSubmissionStore(pool *pgxpool.Pool, store *EventStore, deliveries *DeliveryStore, log *slog.Logger) (*SubmissionStore, func()) {
	return NewObservedSubmissionStore(pool, store, deliveries, log, noCommitObserver{})
}

// NewObservedSubmissionStore is NewSubmissionStore reporting every group
// commit to commits.
func NewObservedSubmissionStore(pool *pgxpool.Pool, store *EventStore, deliveries *DeliveryStore, log *slog.Logger,
	commits CommitObserver) (*SubmissionStore, func()) {
	s := newSubmissionStore(pool, store, deliveries, log, commits, defaultCommitWorkers)
	return s, s.Close
}

// newSubmissionStore starts workers commit workers, each with its lane.
func newSubmissionStore(pool *pgxpool.Pool, store *EventStore, deliveries *DeliveryStore, log *slog.Logger, commits CommitObserver,
	workers int) *SubmissionStore {
	if deliveries == nil {
		// Written unclaimed, a handed-off delivery could be claimed by
		// another process too, and sent twice.
		panic("postgres: a submission store needs the delivery store its hand-offs are claimed for")
	}
	s := &SubmissionStore{pool: pool, store: store, log: log, stop: make(chan struct{}), commits: commits, claimant: deliveries.instance}
	for range workers {
		lane := make(chan *pendingSubmission, 4*maxBatch)
		s.lanes = append(s.lanes, lane)
		s.wg.Add(1)
		go s.work(lane)
	}
	return s
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
	case s.laneOf(sub) <- p:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.stop:
		return nil, errors.New("submission store is closed")
	}
	r := <-p.done
	return r.prior, r.err
}

// laneOf is the lane of the submission's account (of its form, for one that
// charges no quota): an FNV-1a hash of the id.
func (s *SubmissionStore) laneOf(sub application.AcceptedSubmission) chan *pendingSubmission {
	key := sub.Charge.AccountID
	if key == "" {
		key = sub.FormID
	}
	h := uint32(2166136261)
	for i := 0; i < len(key); i++ {
		h = (h ^ uint32(key[i])) * 16777619
	}
	return s.lanes[h%uint32(len(s.lanes))]
}

func (s *SubmissionStore) work(lane chan *pendingSubmission) {
	defer s.wg.Done()
	batch := make([]*pendingSubmission, 0, maxBatch)
	for {
		var first *pendingSubmission
		select {
		case first = <-lane:
		case <-s.stop:
			select { // drain what is already queued
			case first = <-lane:
			default:
				return
			}
		}
		batch = append(batch[:0], first)
	fill:
		for len(batch) < maxBatch {
			select {
			case p := <-lane:
				batch = append(batch, p)
			default:
				break fill
			}
		}
		start := time.Now()
		s.commitBatch(batch)
		s.commits.ObserveCommit(len(batch), time.Since(start))
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
