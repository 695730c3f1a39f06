package application

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// ErrUnauthenticated means no valid credential came with a control-plane call.
var ErrUnauthenticated = errors.New("a valid bearer token or session cookie is required")

// RetryAfter is a transient failure whose receiver asked for the next
// attempt to wait at least Wait: a Retry-After header on a 429 or 503. The
// delivery decides the actual time (delivery.FailNotBefore), which caps
// what a receiver may ask.
type RetryAfter struct {
	// Wait is how long the receiver asked to wait, from its answer.
	Wait time.Duration
	// Err is the failure itself ("receiver answered 503").
	Err error
}

// Error names the failure and the wait, in whole seconds rounded up, so the
// delivery log says why the next attempt is later than the schedule's.
func (e *RetryAfter) Error() string {
	return fmt.Sprintf("%v; it asked to retry after %.0f s", e.Err, math.Ceil(e.Wait.Seconds()))
}

// Unwrap is the failure itself.
func (e *RetryAfter) Unwrap() error { return e.Err }
