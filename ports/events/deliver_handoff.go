package events

import (
	"sync"

	"github.com/formd/formd/application"
)

// DeliveryHandOff carries the deliveries that a submission's own commit
// claimed for this process straight to this process's delivery workers, so
// a fresh delivery costs no claim statement and no wake-up: the commit
// writes it claimed by this process, under the same lease a claim takes,
// and its sealed payload is still in memory. It also counts the delivery
// workers' slots: a delivery is handed off only into a slot reserved before
// its commit, so the workers never hold more than their capacity and a
// hand-off never waits. A delivery that finds no free slot is committed
// unclaimed and claimed as before.
//
// The claim is in PostgreSQL either way: if this process dies before the
// attempt, its claims are released as any claim of a dead process is.
type DeliveryHandOff struct {
	mu       sync.Mutex
	capacity int
	free     int
	// held names the deliveries handed to the workers and not yet finished
	// (attempted and recorded, or given up): the claims this process keeps.
	held map[string]int
	// settling refuses reservations while stray claims are released.
	settling bool
	strays   StrayClaims
	// work is the workers' channel while they run: nil before Open and
	// after Close.
	work  chan application.DueDelivery
	freed chan struct{}
	// intake counts this process's submissions in progress, for the
	// workers to give way to while intake is saturated.
	intake *IntakeLoad
}

// NewDeliveryHandOff builds a hand-off with no slots: nothing is reserved
// until the delivery workers open it. Its delivery workers give way to
// intake from an average of giveWayAt submissions in progress (0: never).
func NewDeliveryHandOff(giveWayAt int) *DeliveryHandOff {
	return &DeliveryHandOff{freed: make(chan struct{}, 1), intake: NewIntakeLoad(giveWayAt), held: map[string]int{}}
}

// WithStrayClaims has the delivery workers release, after the database was
// away, this process's claims that they do not hold (see StrayClaims).
func (h *DeliveryHandOff) WithStrayClaims(strays StrayClaims) *DeliveryHandOff {
	h.strays = strays
	return h
}

// Intake is the load of this process's submissions, which the delivery
// workers give way to (IntakeLoad): the hand-off is where this process's
// intake and its delivery workers meet.
func (h *DeliveryHandOff) Intake() *IntakeLoad { return h.intake }

// Open gives the hand-off capacity slots and returns the channel the
// delivery workers take their work from. It holds twice the slots: a claim
// asks for the slots free when it starts (Free) and takes what it got
// (handClaimed), while submissions may reserve some of the same slots meanwhile,
// so up to twice the capacity can be out, and no hand-off ever blocks.
func (h *DeliveryHandOff) Open(capacity int) <-chan application.DueDelivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.capacity, h.free = capacity, capacity
	h.work = make(chan application.DueDelivery, 2*capacity)
	return h.work
}

// Close stops reservations and hand-offs and closes the work channel once
// what it holds is taken. A delivery reserved before Close and committed
// after it stays claimed by this process until its release at the process's
// leaving (or, failing that, its lease).
func (h *DeliveryHandOff) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.work != nil {
		close(h.work)
		h.work = nil
	}
}

// Reserve takes n slots if that many are free, or none: a submission's
// deliveries are handed off together or claimed as before.
func (h *DeliveryHandOff) Reserve(n int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.work == nil || h.settling || n <= 0 || h.free < n {
		return false
	}
	h.free -= n
	return true
}

// Free is how many slots are free now (none once closed): how many
// deliveries the workers' claimer asks for.
func (h *DeliveryHandOff) Free() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.work == nil {
		return 0
	}
	return h.free
}

// Release gives back n reserved slots whose deliveries were not handed
// over: a submission that did not commit, or whose commit held some back.
// (The workers give back the slots of handed deliveries with Finish.)
func (h *DeliveryHandOff) Release(n int) {
	if n <= 0 {
		return
	}
	h.mu.Lock()
	h.free += n
	h.mu.Unlock()
	h.signalFreed()
}

func (h *DeliveryHandOff) signalFreed() {
	select {
	case h.freed <- struct{}{}:
	default:
	}
}

// Freed is signalled when slots were released.
func (h *DeliveryHandOff) Freed() <-chan struct{} { return h.freed }

// Hand gives the workers deliveries for slots reserved earlier. Once the
// hand-off is closed they are not attempted here: their slots no longer
// matter, and their claims are released when the process leaves.
func (h *DeliveryHandOff) Hand(due ...application.DueDelivery) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.work == nil {
		return
	}
	for _, d := range due {
		h.held[d.DeliveryID]++
		h.work <- d
	}
}

// handClaimed takes slots for the deliveries the claimer claimed, even if
// submissions reserved some of them since it asked (see Open), and hands
// them to the workers, less those the workers hold already: a claim that
// outlived its lease while the database was away, its outcome waiting to be
// recorded, is claimed again by this process and must not be attempted a
// second time. The claimer does not reserve before it claims: a claim in
// flight holding every free slot would send each submission meanwhile to
// the claimer, whose wake-up would hold them again.
func (h *DeliveryHandOff) handClaimed(claimed []application.DueDelivery) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, d := range claimed {
		if h.held[d.DeliveryID] > 0 {
			continue
		}
		h.free--
		if h.work != nil {
			h.held[d.DeliveryID]++
			h.work <- d
		}
	}
}

// Finish gives back the slots of handed deliveries that the workers are
// done with (recorded, or given up), which are no longer theirs to keep.
func (h *DeliveryHandOff) Finish(ids ...string) {
	if len(ids) == 0 {
		return
	}
	h.mu.Lock()
	for _, id := range ids {
		if h.held[id]--; h.held[id] <= 0 {
			delete(h.held, id)
		}
	}
	h.free += len(ids)
	h.mu.Unlock()
	h.signalFreed()
}
