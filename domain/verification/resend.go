package verification

import (
	"slices"
	"time"

	"github.com/formd/formd/domain"
)

// Limits on how often verification mails are requested, so that the resend
// route cannot be used to flood a mailbox.
const (
	// MaxPerSubjectPerHour bounds the mails for one subject (a form's recipient) in an hour.
	MaxPerSubjectPerHour = 5
	// MaxPerAddressPerHour bounds the mails to one address in an hour, whatever asks.
	MaxPerAddressPerHour = 10
)

// MayResend judges a request for another verification mail, given when the
// earlier mails for the same subject and to the same address were requested
// (any order). It returns nil or a *domain.TooManyRequestsError saying when
// to try again.
func MayResend(forSubject, forAddress []time.Time, now time.Time) error {
	wait := time.Duration(0)
	hourAgo := now.Add(-time.Hour)
	if w := waitForHourly(forSubject, MaxPerSubjectPerHour, hourAgo); w > wait {
		wait = w
	}
	if w := waitForHourly(forAddress, MaxPerAddressPerHour, hourAgo); w > wait {
		wait = w
	}
	if wait <= 0 {
		return nil
	}
	return &domain.TooManyRequestsError{
		Message:    "Too many verification emails were sent for this form or to this address in the last hour. Check the inbox (and the spam folder), or ask again later.",
		RetryAfter: wait,
	}
}

// waitForHourly is how long until fewer than max of times fall within the
// last hour; zero when fewer already do.
func waitForHourly(times []time.Time, max int, hourAgo time.Time) time.Duration {
	var recent []time.Time
	for _, t := range times {
		if t.After(hourAgo) {
			recent = append(recent, t)
		}
	}
	if len(recent) < max {
		return 0
	}
	// The oldest ones must leave the hour until only max-1 remain.
	slices.SortFunc(recent, time.Time.Compare)
	leaves := recent[len(recent)-max]
	return leaves.Sub(hourAgo)
}
