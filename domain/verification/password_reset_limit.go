package verification

import (
	"slices"
	"time"

	"github.com/formd/formd/domain"
)

// Password reset requests per address, whatever route asks (the JSON API,
// the dashboard) and whether or not an account uses the address: a few,
// then one per ResetRequestEvery, so nobody can fill a mailbox with reset
// mails, nor keep replacing its owner's reset link with newer ones.
const (
	ResetRequestBurst = 3
	ResetRequestEvery = 20 * time.Minute
)

// ResetRequestLookback is how far back MayRequestReset needs the earlier
// requests: twice the time an empty bucket takes to fill, so that the
// requests before it cannot leave it less than full.
const ResetRequestLookback = 2 * ResetRequestBurst * ResetRequestEvery

// MayRequestReset judges a password reset request to an address, given when
// the earlier requests to it that were let through were made (any order,
// those since now minus ResetRequestLookback): a token bucket of
// ResetRequestBurst refilled one per ResetRequestEvery, replayed over them.
// It returns nil or a *domain.TooManyRequestsError saying when to try again;
// the words are the same whether or not an account uses the address.
func MayRequestReset(earlier []time.Time, now time.Time) error {
	times := slices.Clone(earlier)
	slices.SortFunc(times, time.Time.Compare)
	tokens, last := float64(ResetRequestBurst), time.Time{}
	refill := func(at time.Time) {
		if !last.IsZero() {
			tokens = min(float64(ResetRequestBurst), tokens+float64(at.Sub(last))/float64(ResetRequestEvery))
		}
		last = at
	}
	for _, t := range times {
		refill(t)
		tokens--
	}
	refill(now)
	if tokens >= 1 {
		return nil
	}
	return &domain.TooManyRequestsError{
		Message:    "Too many password reset requests for this address. Check the inbox (and the spam folder), or try again later.",
		RetryAfter: time.Duration((1 - tokens) * float64(ResetRequestEvery)).Round(time.Second),
	}
}
