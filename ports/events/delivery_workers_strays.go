package events

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"
)

// StrayClaims releases this process's claims on the deliveries other than
// keep, making them due again at once (application.ReleaseStrayClaimsHandler).
type StrayClaims interface {
	Handle(ctx context.Context, keep []string) (int, error)
}

// While the database is away, deliveries can stay claimed by this process
// with no worker holding them: a claim that committed but whose answer was
// lost (with the payloads it read), or a submission's commit that wrote its
// deliveries claimed for this process but whose outcome was unknown. Left
// alone they wait for their lease; once the database answers again the
// claimer releases them instead (releaseStrays).

// settleWait and settleWaitMost are how often and how long the claimer waits
// for the submissions reserving slots to finish before it releases stray
// claims: a reserved delivery may be committed claimed and not yet handed.
// (Variables so tests can change them.)
var (
	settleWait     = 5 * time.Millisecond
	settleWaitMost = time.Second
)

// errReservationsOut says stray claims were not released because
// submissions still held reservations after settleWaitMost.
var errReservationsOut = errors.New("submissions still reserving delivery slots")

// releaseStrays releases this process's claims on the deliveries that its
// workers do not hold. New reservations are refused meanwhile (those
// submissions leave their deliveries unclaimed, for the claimer), and it
// waits for the ones out to be handed or released: every claim this process
// keeps is then in held. The claimer calls it between its claims, so no
// claim of its own is in flight.
func (h *DeliveryHandOff) releaseStrays(ctx context.Context) error {
	if h.strays == nil {
		return nil
	}
	h.mu.Lock()
	h.settling = true
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.settling = false
		h.mu.Unlock()
	}()
	give := time.Now().Add(settleWaitMost)
	for {
		keep, settled := h.heldIfSettled()
		if settled {
			_, err := h.strays.Handle(ctx, keep)
			return err
		}
		if time.Now().After(give) {
			return errReservationsOut
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(settleWait):
		}
	}
}

// heldIfSettled returns the deliveries held, and whether no reserved slot
// is out: every slot taken is then a held delivery's.
func (h *DeliveryHandOff) heldIfSettled() ([]string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	held := 0
	for _, n := range h.held {
		held += n
	}
	if h.capacity-h.free > held {
		return nil, false
	}
	return slices.Collect(maps.Keys(h.held)), true
}
