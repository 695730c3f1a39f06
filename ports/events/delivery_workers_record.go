package events

import (
	"context"
	"log/slog"
	"time"

	"github.com/formd/formd/application"
)

// recordLinger is how long the recorder waits for more outcomes before it
// records a group smaller than a quarter of the slots. A record costs
// PostgreSQL about the same whether it holds one outcome or ten (its
// statements, the events' and messages' inserts and the payloads' settling,
// each have a fixed cost well above a row's), and without lingering a
// steady flow of deliveries records groups of one or two. The mails are sent by then: waiting
// holds a slot a few milliseconds longer and shows "delivered" that much
// later, and delays no recipient. (A variable so tests can stretch it.)
var recordLinger = 10 * time.Millisecond

// recordTimeout bounds one record of outcomes, so a database that stops
// answering mid-record costs a retry rather than the recorder.
const recordTimeout = 30 * time.Second

// recordRetryFirst and recordRetryMost bound the wait before a failed record
// is tried again: short, so outcomes are recorded soon after the database
// answers again, and doubling, so an outage is not met with a tight loop.
// (Variables so tests can shorten them.)
var (
	recordRetryFirst = 100 * time.Millisecond
	recordRetryMost  = 2 * time.Second
)

// recordOutcomes is the recorder: it records the outcomes that have arrived
// in one transaction (a group commit of outcomes), waiting up to
// recordLinger for a small group to grow, until outcomes closes, and frees
// their slots once they are recorded.
//
// An outcome is never dropped while the process runs: a record that fails
// (the database is away) is tried again with the outcomes that arrived
// meanwhile behind it, in order, until it lands. Their slots stay taken
// until then, so the claimer and the hand-off take no new work while
// outcomes wait: what is held in memory is bounded by the slots, and the
// senders never block on a full outcomes channel (it holds as many as can be
// out). Records go on after ctx ends, for grace more; what is still
// unrecorded then is logged: those deliveries may be sent again once their
// claims are released, as when a process dies between a send and its record.
// failed is called on each failed record.
func recordOutcomes(ctx context.Context, rounds deliveryRounds, outcomes <-chan application.Attempt, handOff *DeliveryHandOff,
	most int, grace time.Duration, failed func(), log *slog.Logger) {
	// graceCtx ends grace after ctx: the records' own end at shutdown.
	graceCtx, endGrace := context.WithCancel(context.WithoutCancel(ctx))
	defer endGrace()
	stopGrace := context.AfterFunc(ctx, func() { time.AfterFunc(grace, endGrace) })
	defer stopGrace()

	linger := time.NewTimer(recordLinger)
	linger.Stop()
	retry := time.NewTimer(recordRetryFirst)
	retry.Stop()
	wait := recordRetryFirst
	var pending []application.Attempt
	open, retried := true, false
	for {
		if len(pending) == 0 {
			a, ok := <-outcomes
			if !ok {
				return
			}
			pending = append(pending, a)
		}
		if open {
			pending, open = gatherOutcomes(outcomes, pending, most, linger)
		}
		err := recordWithin(graceCtx, rounds, pending)
		if err != nil && retried && len(pending) > 1 {
			var progress bool
			pending, progress, err = isolateRefused(graceCtx, rounds, pending, handOff, log)
			if progress && err != nil {
				wait = recordRetryFirst
				continue
			}
		}
		if err == nil {
			if retried {
				log.Info("recorded delivery attempts kept while the database was away", "count", len(pending))
			}
			handOff.Finish(deliveryIDs(pending)...)
			pending, wait, retried = nil, recordRetryFirst, false
			continue
		}
		retried = true
		failed()
		if graceCtx.Err() != nil {
			log.Error("delivery outcomes left unrecorded at shutdown: these deliveries may be sent again",
				"count", len(pending), "deliveryIds", deliveryIDs(pending), "err", err)
			handOff.Finish(deliveryIDs(pending)...)
			pending = nil
			continue
		}
		log.Warn("recording delivery attempts; kept and tried again", "count", len(pending), "retryIn", wait, "err", err)
		retry.Reset(wait)
		select {
		case <-retry.C:
		case <-graceCtx.Done():
			retry.Stop()
		}
		wait = min(2*wait, recordRetryMost)
	}
}

// isolateRefused is for a group whose record failed again: the database may
// be away, or it may refuse one outcome of the group (a fault of that
// outcome's) and so every group that holds it. It records the first outcome
// alone, then the others as a group, so an outcome the database refuses
// holds up no other: it stays first in line, tried again (alone once other
// outcomes join it), and is never dropped, since dropping it would send its
// delivery again. It returns what is left to record, whether anything was
// recorded, and the last record's error.
func isolateRefused(ctx context.Context, rounds deliveryRounds, pending []application.Attempt, handOff *DeliveryHandOff,
	log *slog.Logger) ([]application.Attempt, bool, error) {
	first, rest := pending[0], pending[1:]
	firstErr := recordWithin(ctx, rounds, []application.Attempt{first})
	if firstErr == nil {
		handOff.Finish(first.Queued.DeliveryID)
		return rest, true, recordWithin(ctx, rounds, rest)
	}
	if err := recordWithin(ctx, rounds, rest); err != nil {
		return pending, false, err
	}
	handOff.Finish(deliveryIDs(rest)...)
	log.Warn("the database refuses a delivery outcome it took others with; kept and tried again",
		"deliveryId", first.Queued.DeliveryID, "err", firstErr)
	return pending[:1], true, firstErr
}

// recordWithin makes one record of batch, bounded by recordTimeout and ctx.
func recordWithin(ctx context.Context, rounds deliveryRounds, batch []application.Attempt) error {
	recordCtx, cancel := context.WithTimeout(ctx, recordTimeout)
	defer cancel()
	return rounds.Record(recordCtx, batch)
}

func deliveryIDs(attempts []application.Attempt) []string {
	out := make([]string, len(attempts))
	for i, a := range attempts {
		out[i] = a.Queued.DeliveryID
	}
	return out
}

// gatherOutcomes adds to batch the outcomes that arrive within recordLinger
// while it holds fewer than a quarter of most, then those already waiting,
// up to most in all. It returns early, and false, when outcomes closes.
func gatherOutcomes(outcomes <-chan application.Attempt, batch []application.Attempt, most int,
	linger *time.Timer) ([]application.Attempt, bool) {
	linger.Reset(recordLinger)
	defer linger.Stop()
wait:
	for len(batch) < max(most/4, 1) {
		select {
		case a, ok := <-outcomes:
			if !ok {
				return batch, false
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
				return batch, false
			}
			batch = append(batch, a)
		default:
			return batch, true
		}
	}
	return batch, true
}
