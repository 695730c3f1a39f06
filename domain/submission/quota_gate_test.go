package submission_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/submission"
)

func usage(used, quota int) *account.Usage {
	return &account.Usage{Plan: account.PlanFree, Quota: quota, Used: used,
		Month: account.MonthOf(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))}
}

func TestADryRunJudgesTheQuotaLast(t *testing.T) {
	for _, tt := range []struct {
		name     string
		usage    *account.Usage
		spam     bool
		want     string // the quota gate's outcome
		wantGate string // the first failure; empty: accepted
	}{
		{name: "room left", usage: usage(999, 1000), want: "quota:passed"},
		{name: "used up", usage: usage(1000, 1000), want: "quota:failed", wantGate: submission.GateQuota},
		{name: "over (a quota lowered since)", usage: usage(1200, 1000), want: "quota:failed", wantGate: submission.GateQuota},
		{name: "used up, and spam first", usage: usage(1000, 1000), spam: true, want: "quota:failed", wantGate: submission.GateHoneypot},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := browser(field("message", "hi"))
			if tt.spam {
				r = browser(field("botcheck", "on"))
			}
			r.DryRun = true
			tg := target()
			tg.Usage = tt.usage
			v := submission.Judge(r, tg, account.NewEntitlements())
			gates := v.Gates()
			last := gates[len(gates)-1]
			if got := last.Gate + ":" + last.Outcome; got != tt.want {
				t.Fatalf("last gate %s, want %s (gates %+v)", got, tt.want, gates)
			}
			var rejected *submission.RejectedError
			switch {
			case tt.wantGate == "" && v.Err() != nil:
				t.Fatalf("Err() = %v, want accepted", v.Err())
			case tt.wantGate != "" && (!errors.As(v.Err(), &rejected) || rejected.Gate != tt.wantGate):
				t.Fatalf("Err() = %v, want a refusal by %s", v.Err(), tt.wantGate)
			}
			if tt.wantGate == submission.GateQuota {
				if last.Message != tt.usage.ExhaustedMessage() || !rejected.Until.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
					t.Errorf("message %q, until %v: want the quota's message and its reset", last.Message, rejected.Until)
				}
			}
			if tt.wantGate == submission.GateHoneypot && !rejected.Until.IsZero() {
				t.Errorf("a spam refusal holds until %v; only the quota's refusal has an end", rejected.Until)
			}
		})
	}
}

func TestALiveSubmissionLeavesTheQuotaToTheCommit(t *testing.T) {
	tg := target()
	tg.Usage = nil
	v := submission.Judge(browser(field("message", "hi")), tg, account.NewEntitlements())
	if v.Err() != nil || slices.ContainsFunc(v.Gates(), func(g submission.GateResult) bool { return g.Gate == submission.GateQuota }) {
		t.Fatalf("Err() = %v, gates %+v: want accepted with no quota verdict", v.Err(), v.Gates())
	}

	v = submission.OverQuota(*usage(1000, 1000))
	var rejected *submission.RejectedError
	if !errors.As(v.Err(), &rejected) || rejected.Gate != submission.GateQuota ||
		rejected.Message != "Monthly submission quota of 1000 for the free plan is used up; it resets on 2026-12-01T00:00:00Z." ||
		!rejected.Until.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("OverQuota: Err() = %#v", v.Err())
	}
}
