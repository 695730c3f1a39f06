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
// One claimer rather than n workers that each claim and record their own
// group: a commit would wake all of them, the first would claim what was due
// while the others ran empty claims, and every group would be recorded in
// its own transaction. Claims, records and
// leases stay in PostgreSQL (SKIP LOCKED), so the pipelines of several
// processes share the queue as the workers did.
//
// When ctx ends, no new attempt starts; attempts under way finish and are
// recorded (within their deadline), and what was claimed but not attempted
// is left to DeliveryStore.Leave.
func (r *Router) RunDeliveryWorkers(ctx context.Context, n int, log *slog.Logger) {
	runDeliveryPipeline(ctx, r.deliver, r.handOff, r.due, n, log)
}

func runDeliveryPipeline(ctx context.Context, rounds deliveryRounds, handOff *DeliveryHandOff, due DeliveriesDue, n int, log *slog.Logger) {
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
					handOff.Release(1)
					continue
				}
				// An attempt under way finishes even if ctx ends meanwhile: a
				// message cut off mid-send is one the recipient may get twice.
				a, err := rounds.Attempt(context.WithoutCancel(ctx), d)
				if err != nil {
					log.Warn("delivery attempt", "deliveryId", d.DeliveryID, "err", err)
					handOff.Release(1)
					continue
				}
				outcomes <- a
			}
		}()
	}
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		recordOutcomes(ctx, rounds, outcomes, handOff, capacity, log)
	}()

	claimDue(ctx, rounds, due, handOff, log)
	handOff.Close() // no more work: the senders finish what the channel holds
	senders.Wait()
	close(outcomes)
	<-recorded
}

// claimDue is the claimer: it claims as many due deliveries as there are
// free slots, claiming again at once while claims come back full (more may
// be due) and otherwise when woken. A submission's deliveries that its
// commit handed off need no claim, and no wake-up.
func claimDue(ctx context.Context, rounds deliveryRounds, due DeliveriesDue, handOff *DeliveryHandOff, log *slog.Logger) {
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
		}
		handOff.Take(len(claimed))
		handOff.Hand(claimed...)
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

// recordLinger is how long the recorder waits for more outcomes before it
// records a group smaller than a quarter of the slots. A record costs
// PostgreSQL about the same whether it holds one outcome or ten (its
// statements, the events' and messages' inserts and the payloads' settling,
// each have a fixed cost well above a row's), and without lingering a
// steady flow of deliveries records groups of one or two. The mails are sent by then: waiting
// holds a slot a few milliseconds longer and shows "delivered" that much
// later, and delays no recipient. (A variable so tests can stretch it.)
var recordLinger = 10 * time.Millisecond

// recordOutcomes is the recorder: it records the outcomes that have arrived
// in one transaction (a group commit of outcomes), waiting up to
// recordLinger for a small group to grow, until outcomes closes, and frees
// their slots.
func recordOutcomes(ctx context.Context, rounds deliveryRounds, outcomes <-chan application.Attempt, handOff *DeliveryHandOff,
	most int, log *slog.Logger) {
	linger := time.NewTimer(recordLinger)
	linger.Stop()
	for a := range outcomes {
		batch := gatherOutcomes(outcomes, []application.Attempt{a}, most, linger)
		// Recorded even while shutting down: the messages were sent.
		recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
		err := rounds.Record(recordCtx, batch)
		cancel()
		if err != nil {
			// The deliveries stay claimed until their lease ends, and are then
			// attempted again.
			log.Warn("recording delivery attempts", "count", len(batch), "err", err)
		}
		handOff.Release(len(batch))
	}
}

// gatherOutcomes adds to batch the outcomes that arrive within recordLinger
// while it holds fewer than a quarter of most, then those already waiting,
// up to most in all. It returns early when outcomes closes.
func gatherOutcomes(outcomes <-chan application.Attempt, batch []application.Attempt, most int, linger *time.Timer) []application.Attempt {
	linger.Reset(recordLinger)
	defer linger.Stop()
wait:
	for len(batch) < max(most/4, 1) {
		select {
		case a, ok := <-outcomes:
			if !ok {
				return batch
			}
			batch = append(batch, a)
		case <-linger.C:
			break wait
		}
	}
	for len(batch) < most {
		select {
		case a, ok := <-outcomes:
			if !ok {
				return batch
			}
			batch = append(batch, a)
		default:
			return batch
		}
	}
	return batch
}
