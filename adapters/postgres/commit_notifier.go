package postgres

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// CommitNotifier sends the NOTIFY that wakes subscribers and delivery
// workers in every process after the hot paths' commits (group commits of
// submissions, recorded delivery attempts), from a transaction of its own.
//
// Why not NOTIFY inside those transactions: PostgreSQL serializes the
// commits of notifying transactions on one lock that each holds until its
// commit record is flushed (PreCommit_Notify in async.c). With
// log_lock_waits on, every committing backend under load shows up queueing
// on "AccessExclusiveLock on object 0 of class 1262": each notifying commit
// waits for the previous one's WAL flush, so concurrent commits cannot share
// a flush. Here the NOTIFY runs with synchronous_commit off, so it
// holds that lock for a moment rather than a flush, and the wake-ups of
// many commits share one statement.
//
// A wake-up lost to a crash between a commit and its NOTIFY costs latency
// only: subscribers poll (watermillpg.PollInterval) and idle delivery
// workers look again every second.
//
// After each send the notifier waits out notifyInterval before the next, so
// the wake-ups of the commits in between share one statement. Otherwise a
// process without delivery workers would wake the others after every group
// commit: at one client, a NOTIFY transaction (and every listener's
// wake-up) for each submission, which costs that process a noticeable share
// of its intake (see docs/performance.md). The first wake-up after a quiet
// spell goes at once.
type CommitNotifier struct {
	pool     *pgxpool.Pool
	log      *slog.Logger
	interval time.Duration

	mu      sync.Mutex
	pending map[notification]struct{}
	signal  chan struct{}
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

type notification struct{ channel, payload string }

// notifyInterval is the shortest time between two NOTIFY statements of one
// notifier: at most 200 a second, and a wake-up later by at most this.
const notifyInterval = 5 * time.Millisecond

// NewCommitNotifier starts a notifier on pool; Close stops it.
func NewCommitNotifier(pool *pgxpool.Pool, log *slog.Logger) *CommitNotifier {
	return newCommitNotifier(pool, log, notifyInterval)
}

// newCommitNotifier starts a notifier that sends at most once per interval.
func newCommitNotifier(pool *pgxpool.Pool, log *slog.Logger, interval time.Duration) *CommitNotifier {
	n := &CommitNotifier{pool: pool, log: log, interval: interval, pending: map[notification]struct{}{},
		signal: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go n.run()
	return n
}

// Notify asks for NOTIFY channel, payload once for each payload, soon; it
// never blocks. Call it after the commit that made the work: a listener
// woken before the commit would find nothing to do.
func (n *CommitNotifier) Notify(channel string, payloads ...string) {
	n.mu.Lock()
	for _, p := range payloads {
		n.pending[notification{channel, p}] = struct{}{}
	}
	n.mu.Unlock()
	select {
	case n.signal <- struct{}{}:
	default: // a send is already due and will carry these too
	}
}

// Close sends what is pending and stops the notifier.
func (n *CommitNotifier) Close() {
	n.once.Do(func() { close(n.stop) })
	<-n.done
}

func (n *CommitNotifier) run() {
	defer close(n.done)
	for {
		select {
		case <-n.signal:
			n.flush()
		case <-n.stop:
			n.flush()
			return
		}
		// Wake-ups asked for meanwhile wait for the next send; Close sends
		// them at once.
		select {
		case <-time.After(n.interval):
		case <-n.stop:
			n.flush()
			return
		}
	}
}

// flush sends every pending notification in one statement, its own
// transaction. On failure they are dropped: listeners poll.
func (n *CommitNotifier) flush() {
	n.mu.Lock()
	if len(n.pending) == 0 {
		n.mu.Unlock()
		return
	}
	channels, payloads := make([]string, 0, len(n.pending)), make([]string, 0, len(n.pending))
	for k := range n.pending {
		channels, payloads = append(channels, k.channel), append(payloads, k.payload)
	}
	clear(n.pending)
	n.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := notify(ctx, n.pool, channels, payloads); err != nil {
		n.log.Warn("wake-up after commit not sent; listeners will poll", "err", err)
	}
}

// notify sends the notifications in one transaction that does not wait for
// its commit record's flush (set_config's third argument: this transaction
// only). A notification needs no durability; waiting would hold the notify
// lock through a flush again.
func notify(ctx context.Context, pool *pgxpool.Pool, channels, payloads []string) error {
	_, err := pool.Exec(ctx, `
		SELECT set_config('synchronous_commit', 'off', true), pg_notify(n.channel, n.payload)
		FROM unnest($1::text[], $2::text[]) AS n(channel, payload)`, channels, payloads)
	return err
}
