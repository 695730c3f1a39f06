package portkit

import (
	"context"
	"time"
)

// PasswordCheckSlots bounds concurrent password checks (Argon2id: 19 MiB
// and a few milliseconds of a core each, with no credential needed to ask
// for one) to the cores: more at once only queue in the scheduler while
// each holds its memory. Each port keeps its own slots.
type PasswordCheckSlots chan struct{}

// NewPasswordCheckSlots allows n checks at once (at least one).
func NewPasswordCheckSlots(n int) PasswordCheckSlots { return make(PasswordCheckSlots, max(n, 1)) }

// PasswordCheckWait is how long an attempt waits for a free slot before it
// is refused as busy.
const PasswordCheckWait = 2 * time.Second

// Acquire takes a slot, waiting at most wait, and reports whether it got
// one; Release gives it back.
func (p PasswordCheckSlots) Acquire(ctx context.Context, wait time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	// A free slot is taken at once: select picks at random among ready
	// cases, so with the timer already fired (a short wait on a busy
	// machine) it could otherwise refuse a check while a slot was free.
	select {
	case p <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case p <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// Release gives back a slot Acquire took.
func (p PasswordCheckSlots) Release() { <-p }
