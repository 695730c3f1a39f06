// Package delivery is the Delivery aggregate: queued -> attempted ->
// succeeded | failed. Each delivery has a stable id that goes out as the email
// Message-ID or webhook-id, so a retried attempt is recognisable downstream.
package delivery

import (
	"errors"
	"fmt"
	"time"
)

// MaxJitter is the largest share of a retry's wait added at random, so
// deliveries that failed together do not all retry at the same instant.
const MaxJitter = 0.2

// ErrFinal means a delivery already succeeded or gave up: no attempt can be
// recorded after that.
var ErrFinal = errors.New("delivery: already final")

// Delivery is one delivery between attempts: what was queued and how many
// attempts were made. It decides what an attempt's outcome means: success,
// a retry at a later time, or a final failure.
type Delivery struct {
	queued   Queued
	attempts int
	outcome  Event
}

// Resume rebuilds a delivery that was claimed for its next attempt, from its
// queued event and the attempts made so far. It checks no rule: the stored
// state is history.
func Resume(q Queued, attempts int) *Delivery {
	return &Delivery{queued: q, attempts: attempts}
}

// Queued is the event that queued the delivery.
func (d *Delivery) Queued() Queued { return d.queued }

// ID is the delivery's stable id (the email Message-ID, the webhook-id).
func (d *Delivery) ID() string { return d.queued.DeliveryID }

// Kind is what the delivery sends.
func (d *Delivery) Kind() string { return d.queued.Kind }

// Attempts is how many attempts were made, the one being recorded included.
func (d *Delivery) Attempts() int { return d.attempts }

// Outcome is the event the last recorded attempt produced; nil before one.
func (d *Delivery) Outcome() Event { return d.outcome }

// Final reports whether the delivery succeeded or gave up.
func (d *Delivery) Final() bool { return d.outcome != nil && Final(d.outcome) }

// Succeed records an attempt that reached its target.
func (d *Delivery) Succeed(now time.Time) (Event, error) {
	if d.Final() {
		return nil, ErrFinal
	}
	d.attempts++
	d.outcome = Succeeded{Attempt: d.attempts, At: now}
	return d.outcome, nil
}

// MaxRetryAfter caps the wait a receiver may ask for (Retry-After): the
// schedule's longest wait, so a hostile or broken receiver cannot park a
// delivery, and the sealed payload it keeps, for longer than the schedule
// itself would.
const MaxRetryAfter = 24 * time.Hour

// Fail records a failed attempt. A permanent failure (one no retry can fix)
// or the last attempt of the kind's Schedule gives up; otherwise the next
// attempt is due after the schedule's wait plus jitter, a share of MaxJitter
// of it in [0, 1).
func (d *Delivery) Fail(reason string, permanent bool, now time.Time, jitter float64) (Event, error) {
	return d.fail(reason, permanent, time.Time{}, now, jitter)
}

// FailNotBefore records a transient failed attempt whose receiver asked not
// to be called again before notBefore (Retry-After on a 429 or 503). The
// next attempt is due at the later of the schedule's time (as Fail) and
// notBefore, notBefore being capped at MaxRetryAfter from now. It still
// counts as an attempt: the last one of the schedule gives up as with Fail.
func (d *Delivery) FailNotBefore(reason string, notBefore, now time.Time, jitter float64) (Event, error) {
	return d.fail(reason, false, notBefore, now, jitter)
}

func (d *Delivery) fail(reason string, permanent bool, notBefore, now time.Time, jitter float64) (Event, error) {
	if d.Final() {
		return nil, ErrFinal
	}
	if jitter < 0 || jitter >= 1 {
		return nil, fmt.Errorf("delivery: jitter %v is outside [0, 1)", jitter)
	}
	d.attempts++
	schedule := ScheduleFor(d.Kind())
	if permanent || d.attempts >= schedule.MaxAttempts() {
		d.outcome = GaveUp{Attempts: d.attempts, Reason: reason, At: now}
		return d.outcome, nil
	}
	wait := schedule.Wait(d.attempts)
	wait += time.Duration(jitter * MaxJitter * float64(wait))
	next := now.Add(wait)
	if latest := now.Add(MaxRetryAfter); notBefore.After(latest) {
		notBefore = latest
	}
	if notBefore.After(next) {
		next = notBefore
	}
	d.outcome = AttemptFailed{Attempt: d.attempts, Reason: reason, NextAt: next, At: now}
	return d.outcome, nil
}

// Postpone records an attempt formd could not make for a fault of its own
// that its operator can fix, such as a sealed payload that none of its keys
// opens. Unlike Fail it never gives up: the delivery waits on the usual
// schedule (capped by Backoff) however long the fault lasts, so the payload
// it needs is never redacted and the first attempt after the fix delivers
// it. Postponed attempts count toward MaxAttempts like any other.
func (d *Delivery) Postpone(reason string, now time.Time, jitter float64) (Event, error) {
	if d.Final() {
		return nil, ErrFinal
	}
	if jitter < 0 || jitter >= 1 {
		return nil, fmt.Errorf("delivery: jitter %v is outside [0, 1)", jitter)
	}
	d.attempts++
	wait := Backoff(d.attempts)
	wait += time.Duration(jitter * MaxJitter * float64(wait))
	d.outcome = AttemptFailed{Attempt: d.attempts, Reason: reason, NextAt: now.Add(wait), At: now}
	return d.outcome, nil
}
