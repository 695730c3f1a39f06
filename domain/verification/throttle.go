package verification

import (
	"slices"
	"time"

	"github.com/formd/formd/domain"
)

// Limits on how many recipient verification mails are sent, whatever asks
// for one (a new form, a changed recipientEmail, a resend), so that no route
// can be used to flood a mailbox.
const (
	// MaxPerSubjectPerHour bounds the mails for one subject (a form's recipient) in an hour.
	MaxPerSubjectPerHour = 5
	// MaxPerAddressPerHour bounds the mails to one address in an hour, whatever asks.
	MaxPerAddressPerHour = 10
	// MaxPerAccountPerHour bounds the recipient verification mails one
	// account asks for in an hour, to any addresses.
	MaxPerAccountPerHour = 20
)

// ThrottleWindow is how far back the recipient verification limits look.
const ThrottleWindow = time.Hour

// RecentRequests says when the earlier verification mails were requested
// (any order): for the same subject, to the same address (any kind) and by
// the same account (recipient verifications of any of its forms).
type RecentRequests struct {
	ForSubject, ForAddress, ForAccount []time.Time
}

// MaySend judges a request for a recipient verification mail. It returns
// nil or a *domain.TooManyRequestsError saying when to try again.
func MaySend(r RecentRequests, now time.Time) error {
	wait := time.Duration(0)
	hourAgo := now.Add(-ThrottleWindow)
	for _, limit := range []struct {
		times []time.Time
		max   int
	}{{r.ForSubject, MaxPerSubjectPerHour}, {r.ForAddress, MaxPerAddressPerHour}, {r.ForAccount, MaxPerAccountPerHour}} {
		if w := waitForHourly(limit.times, limit.max, hourAgo); w > wait {
			wait = w
		}
	}
	if wait <= 0 {
		return nil
	}
	return &domain.TooManyRequestsError{
		Message:    "Too many verification emails were sent for this form, to this address or by this account in the last hour. Check the inbox (and the spam folder), or ask again later.",
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
