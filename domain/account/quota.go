package account

import (
	"fmt"
	"time"
)

// Quotas are the monthly submission quotas of the plans: how many live
// submissions an account on each plan may have accepted in one calendar
// month (UTC). They are the operator's configuration, not events: changing
// one applies to every account on the plan at once.
type Quotas struct {
	Free     int
	Pro      int
	Lifetime int
}

// Of is the quota of plan p; an unknown plan gets the free plan's.
func (q Quotas) Of(p Plan) int {
	switch p {
	case PlanPro:
		return q.Pro
	case PlanLifetime:
		return q.Lifetime
	}
	return q.Free
}

// Month is the calendar month (UTC) a quota counts submissions in.
type Month struct{ start time.Time }

// MonthOf is the month t falls in, in UTC.
func MonthOf(t time.Time) Month {
	t = t.UTC()
	return Month{start: time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)}
}

// Start is the month's first instant.
func (m Month) Start() time.Time { return m.start }

// End is the first instant of the next month: when the quota resets.
func (m Month) End() time.Time { return m.start.AddDate(0, 1, 0) }

// String is the month as 2026-11.
func (m Month) String() string { return m.start.Format("2006-01") }

// Usage is an account's submissions counted in one month against its plan's
// quota.
type Usage struct {
	Plan  Plan
	Quota int
	Used  int
	Month Month
}

// Exhausted reports whether another submission would exceed the quota.
func (u Usage) Exhausted() bool { return u.Used >= u.Quota }

// Remaining is how many submissions the month still allows.
func (u Usage) Remaining() int { return max(u.Quota-u.Used, 0) }

// ResetsAt is when the count starts again from zero.
func (u Usage) ResetsAt() time.Time { return u.Month.End() }

// ExhaustedMessage tells a refused submitter which quota is used up and when
// it resets.
func (u Usage) ExhaustedMessage() string {
	return fmt.Sprintf("Monthly submission quota of %d for the %s plan is used up; it resets on %s.",
		u.Quota, u.Plan, u.ResetsAt().Format(time.RFC3339))
}
