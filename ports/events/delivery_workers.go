package events

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
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
// recorded, so one claim keeps the senders busy between wake-ups.
const claimPerSender = 16

// idleWait is how long an idle pipeline waits for a wake-up before it looks
// for due deliveries anyway: retries come due by the clock, not by a
// notification. (A variable so tests can count claims without the clock's.)
var idleWait = time.Second

// giveWayAtMost is how long a sender gives way to saturated intake before
// an attempt (IntakeLoad), so deliveries go on however long
// intake stays saturated: each sender makes an attempt per giveWayAtMost
// and its attempt's own time, which keeps mail flowing at a useful rate
// under a sustained burst (see docs/performance.md). (A variable so tests
// can change it.)
var giveWayAtMost = 20 * time.Millisecond

// RunDeliveryWorkers delivers until ctx ends, making up to n attempts at once.
// It is a pipeline, the shape of River's producer and batch completer:
//
//   - one claimer per process leases due deliveries, as many as the process
//     has room for, when a commit wakes it (or every idleWait);
//   - n senders attempt them, each delivery on its own;
//   - one recorder records the outcomes, all that finished while it was
//     recording the last ones in one transaction, and gives their room back.
//
// One claimer rather than n workers that each claim and record their own
// group: a commit would wake all of them, the first would claim what was due
// while the others ran empty claims, and every group would be recorded in
// its own transaction. Claims, records and
// leases stay in PostgreSQL (SKIP LOCKED), so the pipelines of several
// processes share the queue as the workers did.
//
// When ctx ends, no new attempt starts; attempts under way finish and are
// recorded (within their deadline, and outcomes the database did not take
// within grace more are logged), and what was claimed but not attempted is
// left to DeliveryStore.Leave.
func (r *Router) RunDeliveryWorkers(ctx context.Context, n int, grace time.Duration, log *slog.Logger) {
	runDeliveryPipeline(ctx, r.deliver, r.handOff, r.due, n, grace, log)
}

func runDeliveryPipeline(ctx context.Context, rounds deliveryRounds, handOff *DeliveryHandOff, due DeliveriesDue, n int,
	grace time.Duration, log *slog.Logger) {
	if n <= 0 {
		return
	}
	capacity := n * claimPerSender
	// The hand-off counts the slots of deliveries out (claimed, or handed
	// off by a submission's commit, and not yet recorded) and holds the
	// work; outcomes holds as many as can be out, so no send blocks.
	work := handOff.Open(capacity)
	outcomes := make(chan application.Attempt, 2*capacity)

	var senders sync.WaitGroup
	for range n {
		senders.Add(1)
		go func() {
			defer senders.Done()
			for d := range work {
				handOff.Intake().GiveWay(ctx, giveWayAtMost)
				if ctx.Err() != nil { // shutting down: left for Leave to release
					handOff.Finish(d.DeliveryID)
					continue
				}
				// An attempt under way finishes even if ctx ends meanwhile: a
				// message cut off mid-send is one the recipient may get twice.
				a, err := rounds.Attempt(context.WithoutCancel(ctx), d)
				if err != nil {
					log.Warn("delivery attempt", "deliveryId", d.DeliveryID, "err", err)
					handOff.Finish(d.DeliveryID)
					continue
				}
				outcomes <- a
			}
		}()
	}
	// strays says the database failed the pipeline since the claimer last
	// released this process's stray claims (releaseStrays).
	var strays atomic.Bool
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		recordOutcomes(ctx, rounds, outcomes, handOff, capacity, grace, func() { strays.Store(true) }, log)
	}()

	claimDue(ctx, rounds, due, handOff, &strays, log)
	handOff.Close() // no more work: the senders finish what the channel holds
	senders.Wait()
	close(outcomes)
	<-recorded
}

// claimDue is the claimer: it claims as many due deliveries as there are
// free slots, claiming again at once while claims come back full (more may
// be due) and otherwise when woken. A submission's deliveries that its
// commit handed off need no claim, and no wake-up. After the database
// failed the pipeline (strays), the first claim it answers is followed by
// the release of this process's claims that no worker holds.
func claimDue(ctx context.Context, rounds deliveryRounds, due DeliveriesDue, handOff *DeliveryHandOff, strays *atomic.Bool,
	log *slog.Logger) {
	for ctx.Err() == nil {
		want := handOff.Free()
		if want <= 0 {
			select {
			case <-ctx.Done():
			case <-handOff.Freed():
			}
			continue
		}
		wake := due()
		claimed, err := rounds.Claim(ctx, want)
		if err != nil && ctx.Err() == nil {
			log.Warn("claiming due deliveries", "err", err)
			strays.Store(true)
		}
		handOff.handClaimed(claimed)
		if err == nil && strays.Swap(false) {
			if err := handOff.releaseStrays(ctx); err != nil {
				log.Warn("releasing this process's stray delivery claims", "err", err)
				strays.Store(true)
			}
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
