package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
)

// Group commit: concurrent submissions share one transaction, so one WAL
// flush makes many of them durable. Whoever commits takes whatever is queued
// (up to maxBatch) as soon as the lane is free; nothing waits for a batch to
// fill, and no submission is answered before the commit that holds it.
//
// An account's submissions always take the same lane, and a lane commits one
// group at a time. The commit locks the account's quota row from its charge
// until the commit's WAL flush is done, so two commits for one account would
// take turns on that lock, each charge waiting out the other's flush; in one
// lane the account's submissions share a batch and one flush instead.
//
// A lane has no goroutine of its own: the submission that finds it idle
// commits the group itself, on its request's goroutine, and then hands the
// lane to the first submission that queued meanwhile. A commit worker per
// lane would cost two goroutine hand-offs per group, each a thread woken on
// another core: with one client, one core would run the worker while the
// other went idle.
const (
	defaultCommitLanes = 4
	maxBatch           = 256
)

// SubmissionStore implements application.SubmissionStore with group commit.
type SubmissionStore struct {
	pool    *pgxpool.Pool
	store   *EventStore
	log     *slog.Logger
	lanes   []*lane
	leaders sync.WaitGroup // lanes being committed; Close waits for them
	commits CommitObserver
	// claimant is the process that a submission's handed-off deliveries
	// are written claimed by (application.DeliveryHandOff): the delivery
	// store's, whose heartbeat keeps its claims.
	claimant string
	// outcomeBound is how long an interrupted commit's outcome is asked
	// for before it is answered as unknown.
	outcomeBound time.Duration
}

// lane is one account's line of submissions to commit. Whenever its queue
// is not empty, one submission leads it: commits its groups in turn.
type lane struct {
	mu      sync.Mutex
	queue   []*pendingSubmission
	leading bool
	closed  bool
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
	sub application.AcceptedSubmission
	// done carries the submission's answer, or first the lane's turn.
	done chan acceptResult
}

type acceptResult struct {
	prior *application.StoredResponse
	err   error
	// autoresponderHeld: the submission committed without its
	// autoresponder, whose slot another request holds.
	autoresponderHeld bool
	// lead is no answer: the lane is now this submission's to commit.
	lead bool
}

// NewSubmissionStore returns a store whose lanes commit on the submitters'
// goroutines; Close waits for the commits under way. The deliveries a
// submission hands off (AcceptedSubmission.ClaimedUntil) are written claimed
// by the process of deliveries, so no other process claims them and that
// process's leaving or death releases them like its other claims.
func NewSubmissionStore(pool *pgxpool.Pool, store *EventStore, deliveries *DeliveryStore, log *slog.Logger) (*SubmissionStore, func()) {
	return NewObservedSubmissionStore(pool, store, deliveries, log, noCommitObserver{})
}

// NewObservedSubmissionStore is NewSubmissionStore reporting every group
// commit to commits.
func NewObservedSubmissionStore(pool *pgxpool.Pool, store *EventStore, deliveries *DeliveryStore, log *slog.Logger,
	commits CommitObserver) (*SubmissionStore, func()) {
	s := newSubmissionStore(pool, store, deliveries, log, commits, defaultCommitLanes)
	return s, s.Close
}

// newSubmissionStore makes a store of n lanes.
func newSubmissionStore(pool *pgxpool.Pool, store *EventStore, deliveries *DeliveryStore, log *slog.Logger, commits CommitObserver,
	n int) *SubmissionStore {
	if deliveries == nil {
		// Written unclaimed, a handed-off delivery could be claimed by
		// another process too, and sent twice.
		panic("postgres: a submission store needs the delivery store its hand-offs are claimed for")
	}
	s := &SubmissionStore{pool: pool, store: store, log: log, commits: commits, claimant: deliveries.instance,
		outcomeBound: defaultOutcomeBound}
	for range n {
		s.lanes = append(s.lanes, &lane{})
	}
	return s
}

// Close refuses new submissions and waits until every queued one is
// committed.
func (s *SubmissionStore) Close() {
	for _, l := range s.lanes {
		l.mu.Lock()
		l.closed = true
		l.mu.Unlock()
	}
	s.leaders.Wait()
}

// Accept implements application.SubmissionStore. Once queued, it waits for
// the commit even if ctx ends, so its answer is always the truth.
func (s *SubmissionStore) Accept(ctx context.Context, sub application.AcceptedSubmission) (application.Acceptance, error) {
	if err := ctx.Err(); err != nil {
		return application.Acceptance{}, err
	}
	p := &pendingSubmission{sub: sub, done: make(chan acceptResult, 1)}
	l := s.laneOf(sub)
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return application.Acceptance{}, errors.New("submission store is closed")
	}
	l.queue = append(l.queue, p)
	idle := !l.leading
	if idle {
		l.leading = true
		s.leaders.Add(1)
	}
	l.mu.Unlock()
	if idle {
		s.lead(l)
	}
	r := <-p.done
	if r.lead {
		s.lead(l)
		r = <-p.done
	}
	return application.Acceptance{Prior: r.prior, AutoresponderHeld: r.autoresponderHeld}, unavailable(r.err)
}

// laneOf is the lane of the submission's account (of its form, for one that
// charges no quota): an FNV-1a hash of the id.
func (s *SubmissionStore) laneOf(sub application.AcceptedSubmission) *lane {
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

// lead commits one group of l's queue, the leader's own submission among
// it, then passes the lane on to the first submission queued meanwhile, or
// leaves it idle. The leader answers its own request once its group is
// committed rather than commit the others' groups too.
func (s *SubmissionStore) lead(l *lane) {
	l.mu.Lock()
	n := min(len(l.queue), maxBatch)
	batch := slices.Clone(l.queue[:n])
	l.queue = slices.Delete(l.queue, 0, n)
	l.mu.Unlock()

	// Deferred, so a panic on the commit path (which the HTTP port's
	// recovery turns into a 500 for the leader) cannot leave the lane led
	// by nobody and its queue waiting for ever.
	defer s.passOn(l)
	defer func() {
		if r := recover(); r != nil {
			for _, p := range batch {
				select {
				case p.done <- acceptResult{err: fmt.Errorf("group commit panicked: %v", r)}:
				default: // answered before the panic
				}
			}
			panic(r)
		}
	}()
	start := time.Now()
	s.commitBatch(batch)
	s.commits.ObserveCommit(len(batch), time.Since(start))
}

// passOn gives l to the first submission queued meanwhile, or leaves it
// idle.
func (s *SubmissionStore) passOn(l *lane) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.queue) == 0 {
		l.leading = false
		s.leaders.Done()
		return
	}
	l.queue[0].done <- acceptResult{lead: true}
}

// commitBatch commits a batch; if the shared transaction fails, each
// submission is retried alone so one bad row cannot fail its neighbours.
// An unavailable database fails them all alike, so they are not retried.
func (s *SubmissionStore) commitBatch(batch []*pendingSubmission) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	results, err := s.commit(ctx, batch)
	if err != nil && len(batch) > 1 && !errors.Is(err, application.ErrUnavailable) {
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
