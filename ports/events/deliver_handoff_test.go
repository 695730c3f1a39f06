package events

import (
	"testing"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
)

// Reserve takes all of what it asks for or nothing; a claim may overdraw (a
// claim that asked for the slots free before submissions reserved some);
// after Close nothing is reserved or handed.
func TestTheHandOffCountsSlots(t *testing.T) {
	h := NewDeliveryHandOff(DefaultGiveWayAt)
	if h.Reserve(1) {
		t.Fatal("reserved before the workers opened the hand-off")
	}
	work := h.Open(3)
	if !h.Reserve(2) || h.Reserve(2) || h.Free() != 1 {
		t.Fatalf("after reserving 2 of 3 and asking 2 more: %d free; want 1 and the second refused", h.Free())
	}
	claimed := []application.DueDelivery{claimedDelivery("a"), claimedDelivery("b"), claimedDelivery("c")}
	h.handClaimed(claimed)
	if h.Free() != -2 || h.Reserve(1) {
		t.Fatalf("after a claim took 3: %d free; want -2 and no reservation", h.Free())
	}
	h.Release(5)
	select {
	case <-h.Freed():
	default:
		t.Fatal("a release did not signal the claimer")
	}
	h.Hand(application.DueDelivery{}, application.DueDelivery{})
	h.Close()
	h.Hand(application.DueDelivery{})
	if h.Reserve(1) || h.Free() != 0 {
		t.Fatal("reserved after Close")
	}
	n := 0
	for range work {
		n++
	}
	if n != 5 {
		t.Fatalf("the closed work channel gave %d deliveries; want the 3 claimed and 2 handed before Close", n)
	}
}

func claimedDelivery(id string) application.DueDelivery {
	return application.DueDelivery{ClaimedDelivery: application.ClaimedDelivery{Queued: delivery.Queued{DeliveryID: id}}}
}
