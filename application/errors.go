package application

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// ErrUnauthenticated means no valid credential came with a control-plane call.
var ErrUnauthenticated = errors.New("a valid bearer token or session cookie is required")

// The words every driving port answers with for a refusal that carries no
// message of its own, and for a failure of formd's own.
const (
	MsgNotFound        = "Not found."
	MsgUnauthenticated = "A valid bearer token or session cookie is required."
	MsgInternal        = "Something went wrong on our side. Quote the requestId when reporting it."
)

// PublicMessage is what a caller may be told of err, the same in the JSON
// API and the MCP server: a broken input names its field. ok is false for
// a failure of formd's own, whose detail stays in the log.
func PublicMessage(err error) (msg string, ok bool) {
	f := Classify(err)
	return f.Message, f.Kind != KindInternal
}

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
