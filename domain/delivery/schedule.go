package delivery

import "time"

// Schedule is how a kind of delivery is retried: the wait after each failed
// attempt, the last entry's attempt being the last one made.
type Schedule struct {
	waits []time.Duration
}

// webhookWaits is the Standard Webhooks schedule: attempts
// immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h
// after each failure, spreading ten attempts over about three days so a
// receiver that is down for a day or two still gets every submission.
var webhookWaits = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
	10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour,
}

// ScheduleFor is the retry schedule of kind: webhooks (chat posts included)
// follow the Standard
// Webhooks schedule; mail follows Backoff over MaxAttempts attempts, since
// a mail server that is down is usually back within hours.
func ScheduleFor(kind string) Schedule {
	if IsHTTP(kind) {
		return Schedule{waits: webhookWaits}
	}
	waits := make([]time.Duration, MaxAttempts-1)
	for i := range waits {
		waits[i] = Backoff(i + 1)
	}
	return Schedule{waits: waits}
}

// MaxAttempts is how many attempts are made before giving up.
func (s Schedule) MaxAttempts() int { return len(s.waits) + 1 }

// Wait is how long after failed attempt (1-based) the next is due, before
// jitter; past the schedule's end it is the last wait (a postponed delivery
// keeps waiting on it).
func (s Schedule) Wait(attempt int) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	if attempt > len(s.waits) {
		return s.waits[len(s.waits)-1]
	}
	return s.waits[attempt-1]
}

// MaxAttempts bounds the attempts of a mail delivery; webhooks follow
// their own Schedule (ScheduleFor).
const MaxAttempts = 8

// Backoff is the wait after the given failed attempt (1-based), before jitter:
// 30s, 1m, 2m, 4m, ... capped at 2h.
func Backoff(attempt int) time.Duration {
	d := 30 * time.Second
	for i := 1; i < attempt && d < 2*time.Hour; i++ {
		d *= 2
	}
	if d > 2*time.Hour {
		d = 2 * time.Hour
	}
	return d
}
