package application

import "time"

// IntakeCounter counts the submissions this process is handling, so its
// delivery workers can give way to intake while it is saturated
// (ports/events holds the count and the workers).
type IntakeCounter interface {
	// Begin counts a submission in; End counts it out.
	Begin()
	End()
}

// DeliveryHandOff carries the deliveries a submission's commit claimed for
// this process straight to its delivery workers (ports/events), into
// slots reserved before the commit; a delivery that finds no free slot is
// committed unclaimed and claimed by the workers as any other.
type DeliveryHandOff interface {
	// Reserve takes n slots if that many are free, or none.
	Reserve(n int) bool
	// Release gives back n slots reserved for deliveries that were not
	// committed.
	Release(n int)
	// Hand gives the workers committed deliveries for slots reserved earlier.
	Hand(due ...DueDelivery)
}

// handOffDeadline is when an attempt at a delivery claimed at claimedAt
// must end: half the lease, whether a claim or a commit claimed it.
func handOffDeadline(claimedAt time.Time) time.Time { return claimedAt.Add(DeliveryLease / 2) }
