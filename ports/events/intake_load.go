package events

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// IntakeLoad counts the submissions this process is handling, so that its
// delivery senders give way to intake while intake is saturated. On a
// machine whose cores formd shares with PostgreSQL, a sender's SMTP exchange
// and the recording of its outcome compete with submissions for the same
// CPU, and giving way lets intake run markedly faster under a burst (see
// docs/performance.md). A burst is accepted first, and
// its mail follows a few seconds later; nothing is lost, since every
// delivery waits committed in PostgreSQL.
//
// Saturation is the average of the submissions in progress over about
// averagedOver, at or above the threshold: the count itself swings with
// every group commit (a commit of 30 answers 30 at once), and a stall of
// the database piles submissions up for a hundred milliseconds or so, when
// giving way only delays mail, since the senders are not what holds intake
// up; a shorter average, or a lower threshold, lets such stalls make the
// senders give way and delays mail for nothing. Under a steady load of N
// concurrent clients the average is about three quarters of N. The senders
// sample it each time they are about to attempt.
//
// A sender gives way for a bounded time per attempt (the delivery
// pipeline's giveWayAtMost), so deliveries slow down but never stop. The
// count is per process, as the CPU it stands for is; no decision about what
// is stored depends on it.
type IntakeLoad struct {
	at       atomic.Int64 // give way from this average in progress; 0: never
	progress atomic.Int64
	mu       sync.Mutex
	average  float64   // submissions in progress, averaged over about averagedOver
	sampled  time.Time // when average was last brought up to date
	gaveWay  atomic.Int64
}

// averagedOver is the time constant of the average of submissions in
// progress that decides saturation.
const averagedOver = time.Second

// DefaultGiveWayAt is the average of submissions in progress from which
// delivery senders give way unless configured otherwise
// (FORMD_DELIVERY_GIVE_WAY_AT).
const DefaultGiveWayAt = 40

// NewIntakeLoad counts submissions in progress; senders give way from an
// average of giveWayAt of them (0: never).
func NewIntakeLoad(giveWayAt int) *IntakeLoad {
	l := &IntakeLoad{}
	l.GiveWayAt(giveWayAt)
	return l
}

// GiveWayAt changes the threshold (0: never give way).
func (l *IntakeLoad) GiveWayAt(n int) { l.at.Store(int64(max(n, 0))) }

// Begin counts a submission in progress (application.IntakeCounter);
// End counts it out.
func (l *IntakeLoad) Begin() { l.progress.Add(1) }

// End counts a submission out: see Begin.
func (l *IntakeLoad) End() { l.progress.Add(-1) }

// InProgress is how many submissions are in progress now.
func (l *IntakeLoad) InProgress() int64 { return l.progress.Load() }

// GaveWay is how many times a sender has given way so far.
func (l *IntakeLoad) GaveWay() int64 { return l.gaveWay.Load() }

// saturated samples the submissions in progress at now into their average
// and reports whether it is at the threshold. The first sample, and one
// after a long pause, is the average.
func (l *IntakeLoad) saturated(now time.Time) bool {
	at := l.at.Load()
	if at <= 0 {
		return false
	}
	n := float64(l.progress.Load())
	l.mu.Lock()
	defer l.mu.Unlock()
	weight := 1.0
	if !l.sampled.IsZero() {
		// A sender that read the clock before another one sampled counts
		// as sampling at the same time.
		since := max(now.Sub(l.sampled), 0)
		weight = -math.Expm1(-float64(since) / float64(averagedOver))
		now = l.sampled.Add(since)
	}
	l.average += weight * (n - l.average)
	l.sampled = now
	return l.average >= float64(at)
}

// GiveWay waits for most, or until ctx ends, if intake is saturated, and
// counts it (GaveWay).
func (l *IntakeLoad) GiveWay(ctx context.Context, most time.Duration) {
	if !l.saturated(time.Now()) {
		return
	}
	l.gaveWay.Add(1)
	t := time.NewTimer(most)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
