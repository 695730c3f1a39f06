package events

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/formd/formd/application"
)

// deliveryRounds is what the delivery workers ask of the application: the
// three steps of a delivery (application.DeliverHandler's Claim, Attempt and
// Record), which the pipeline runs apart.
type deliveryRounds interface {
	Claim(ctx context.Context, limit int) ([]application.DueDelivery, error)
	Attempt(ctx context.Context, d application.DueDelivery) (application.Attempt, error)
	Record(ctx context.Context, attempts []application.Attempt) error
}

// claimPerSender is how many claimed deliveries a process holds per
// attempt it makes at once: with 4 senders, up to 64 are claimed and not yet
// recorded, as many as the four workers of 16 that this pipeline replaced.
const claimPerSender = 16

// idleWait is how long an idle pipeline waits for a wake-up before it looks
// for due deliveries anyway: retries come due by the clock, not by a
// notification. (A variable so tests can count claims without the clock's.)
var idleWait = time.Second

// recordTimeout bounds one record of outcomes, which goes on while shutting
// down and so has no other end if the database stops answering.
const recordTimeout = 30 * time.Second

// RunDeliveryWorkers delivers until ctx ends, making up to n attempts at once.
// It is a pipeline, the shape of River's producer and batch completer:
//
//   - one claimer per process leases due deliveries, as many as the process
//     has room for, when a commit wakes it (or every idleWait);
//   - n senders attempt them, each delivery on its own;
//   - one recorder records the outcomes, all that finished while it was
//     recording the last ones in one transaction, and gives their room back.
//
// It replaced n workers that each claimed and recorded their own group: a
// commit woke all of them, and the first claimed what was due while the
// others ran empty claims (57% of the claims in the bench's open loop), and
// every group was recorded in its own transaction. Claims, records and
// leases stay in PostgreSQL (SKIP LOCKED), so the pipelines of several
// processes share the queue as the workers did.
//
// When ctx ends, no new attempt starts; attempts under way finish and are
// recorded (within their deadline), and what was claimed but not attempted
// is left to DeliveryStore.Leave.
func (r *Router) RunDeliveryWorkers(ctx context.Context, n int, log *slog.Logger) {
	runDeliveryPipeline(ctx, r.deliver, r.due, n, log)
}

func runDeliveryPipeline(ctx context.Context, rounds deliveryRounds, due DeliveriesDue, n int, log *slog.Logger) {
	if n <= 0 {
		return
	}
	capacity := n * claimPerSender
	// The buffers hold every delivery the claimer can have out, so no send
	// on them blocks.
	work := make(chan application.DueDelivery, capacity)
	outcomes := make(chan application.Attempt, capacity)
	freed := make(chan int, capacity)

	var senders sync.WaitGroup
	for range n {
		senders.Add(1)
		go func() {
			defer senders.Done()
			for d := range work {
				if ctx.Err() != nil { // shutting down: left for Leave to release
					freed <- 1
					continue
				}
				// An attempt under way finishes even if ctx ends meanwhile: a
				// message cut off mid-send is one the recipient may get twice.
				a, err := rounds.Attempt(context.WithoutCancel(ctx), d)
				if err != nil {
					log.Warn("delivery attempt", "deliveryId", d.DeliveryID, "err", err)
					freed <- 1
					continue
				}
				outcomes <- a
			}
		}()
	}
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		recordOutcomes(ctx, rounds, outcomes, freed, capacity, log)
	}()

	claimDue(ctx, rounds, due, capacity, work, freed, log)
	close(work)
	senders.Wait()
	close(outcomes)
	<-recorded
}

// claimDue is the claimer: it keeps up to capacity deliveries claimed and
// not yet recorded, claiming again at once while claims come back full (more
// may be due) and otherwise when woken.
func claimDue(ctx context.Context, rounds deliveryRounds, due DeliveriesDue, capacity int,
	work chan<- application.DueDelivery, freed <-chan int, log *slog.Logger) {
	out := 0 // claimed and not yet recorded (or given up)
	for ctx.Err() == nil {
		out -= drain(freed)
		if out >= capacity {
			select {
			case <-ctx.Done():
			case k := <-freed:
				out -= k
			}
			continue
		}
		wake := due()
		want := capacity - out
		claimed, err := rounds.Claim(ctx, want)
		if err != nil && ctx.Err() == nil {
			log.Warn("claiming due deliveries", "err", err)
		}
		out += len(claimed)
		for _, d := range claimed {
			work <- d
		}
		if err == nil && len(claimed) == want {
			continue
		}
		select {
		case <-ctx.Done():
		case <-wake:
		case <-time.After(idleWait):
		}
	}
}

// recordOutcomes is the recorder: it records every outcome that has arrived
// in one transaction (a group commit of outcomes) until outcomes closes, and
// frees their room for the claimer.
func recordOutcomes(ctx context.Context, rounds deliveryRounds, outcomes <-chan application.Attempt, freed chan<- int,
	most int, log *slog.Logger) {
	for a := range outcomes {
		batch := []application.Attempt{a}
	more:
		for len(batch) < most {
			select {
			case a, ok := <-outcomes:
				if !ok {
					break more
				}
				batch = append(batch, a)
			default:
				break more
			}
		}
		// Recorded even while shutting down: the messages were sent.
		recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
		err := rounds.Record(recordCtx, batch)
		cancel()
		if err != nil {
			// The deliveries stay claimed until their lease ends, and are then
			// attempted again.
			log.Warn("recording delivery attempts", "count", len(batch), "err", err)
		}
		freed <- len(batch)
	}
}

// drain takes whatever counts are waiting on freed without blocking.
func drain(freed <-chan int) int {
	total := 0
	for {
		select {
		case k := <-freed:
			total += k
		default:
			return total
		}
	}
}
