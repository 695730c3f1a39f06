package application

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/submission"
)

var testQuotas = account.Quotas{Free: 1000, Pro: 50000, Lifetime: 50000}

// freePlan reads every account as on the free plan with used submissions
// this month.
type freePlan struct{ used int }

func (p freePlan) AccountPlan(context.Context, string) (AccountPlanRecord, error) {
	return AccountPlanRecord{Plan: account.PlanFree}, nil
}

func (p freePlan) PlanUsage(context.Context, string, account.Month) (account.Plan, int, error) {
	return account.PlanFree, p.used, nil
}

// noFloods allows every post.
type noFloods struct{}

func (noFloods) Allow(string, time.Time) (bool, time.Duration) { return true, 0 }

// flooded refuses every post for a second.
type flooded struct{ asked []string }

func (f *flooded) Allow(formID string, _ time.Time) (bool, time.Duration) {
	f.asked = append(f.asked, formID)
	return false, time.Second
}

// fullStore refuses every commit as its quota has no room.
type fullStore struct{ fakeStore }

func (s *fullStore) Accept(_ context.Context, a AcceptedSubmission) (Acceptance, error) {
	s.accepted = append(s.accepted, a)
	return Acceptance{}, &QuotaExhaustedError{Usage: account.Usage{Plan: account.PlanFree, Quota: 1000, Used: 1000, Month: a.Charge.Month}}
}

func quotaHandler(store SubmissionStore, plans AccountPlans, floods FormFloodLimits, m Metrics) SubmitCommand {
	f := liveForm(1, "example.com")
	return NewSubmitHandler(&fakeForms{cached: f, fresh: f}, store, noEntitlements{}, plans, plainSealer{}, lenHasher{}, &seqIDs{},
		fixedClock{}, floods, testQuotas, m, noCaptchas(), noSpamChecks(), noUploads(), newMemoryTestInbox(), noHandOff(), uncounted{}, nil)
}

func TestALiveSubmissionIsChargedToItsAccountsMonth(t *testing.T) {
	store := &fakeStore{}
	if _, err := quotaHandler(store, freePlan{}, noFloods{}, NopMetrics{}).Handle(context.Background(), post("https://example.com")); err != nil {
		t.Fatal(err)
	}
	c := store.accepted[0].Charge
	if c.AccountID != "acct-1" || c.Month.String() != "2026-11" || c.Quotas != testQuotas {
		t.Fatalf("charge %+v, want acct-1's 2026-11 under the configured quotas", c)
	}
}

func TestACommitWithoutRoomIsRefusedByTheQuotaGate(t *testing.T) {
	m := &countedMetrics{}
	_, err := quotaHandler(&fullStore{}, freePlan{}, noFloods{}, m).Handle(context.Background(), post("https://example.com"))
	var rejected *SubmissionRejected
	if !errors.As(err, &rejected) || rejected.Gate != submission.GateQuota {
		t.Fatalf("err = %v, want the quota gate's refusal", err)
	}
	want := "Monthly submission quota of 1000 for the free plan is used up; it resets on 2026-12-01T00:00:00Z."
	if rejected.Response.Message != want || rejected.Response.Success || !rejected.Until.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("response %+v until %v", rejected.Response, rejected.Until)
	}
	if !slices.Equal(m.got, []string{"live refused quota"}) {
		t.Errorf("counted %q", m.got)
	}
}

func TestADryRunReportsTheQuotaWithoutCounting(t *testing.T) {
	for _, tt := range []struct {
		name    string
		used    int
		outcome string
	}{{"room left", 999, submission.OutcomePassed}, {"used up", 1000, submission.OutcomeFailed}} {
		t.Run(tt.name, func(t *testing.T) {
			store := &fakeStore{}
			cmd := post("https://example.com")
			cmd.DryRun = true
			out, err := quotaHandler(store, freePlan{used: tt.used}, noFloods{}, NopMetrics{}).Handle(context.Background(), cmd)
			resp := out.Response
			var rejected *SubmissionRejected
			if errors.As(err, &rejected) {
				resp = rejected.Response
				if !rejected.Until.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
					t.Errorf("until %v, want the month's end", rejected.Until)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			last := resp.Gates[len(resp.Gates)-1]
			if last.Gate != submission.GateQuota || last.Outcome != tt.outcome || (err != nil) != (tt.outcome == submission.OutcomeFailed) {
				t.Fatalf("gates %+v, err %v; want quota %s last", resp.Gates, err, tt.outcome)
			}
			if len(store.accepted) != 0 {
				t.Fatal("a dry run reached the store, where quotas are counted")
			}
		})
	}
}

func TestAFloodedFormIsRefusedBeforeAnyWork(t *testing.T) {
	m := &countedMetrics{}
	store, floods := &fakeStore{}, &flooded{}
	_, err := quotaHandler(store, freePlan{}, floods, m).Handle(context.Background(), post("https://example.com"))
	var tooMany *domain.TooManyRequestsError
	if !errors.As(err, &tooMany) || tooMany.RetryAfter != time.Second || tooMany.Message != MsgFormFlooded {
		t.Fatalf("err = %#v, want a 429 with the limit's wait", err)
	}
	if !slices.Equal(floods.asked, []string{"form-1"}) || len(store.accepted) != 0 {
		t.Fatalf("limit asked for %v, committed %d; want the form's bucket and nothing committed", floods.asked, len(store.accepted))
	}
	if !slices.Equal(m.got, []string{"live refused " + FloodGate}) {
		t.Errorf("counted %q", m.got)
	}
}

func TestEveryPlanNeedsAQuota(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a plan without a quota was accepted")
		}
	}()
	quotaFor := testQuotas
	quotaFor.Lifetime = 0
	f := liveForm(1)
	NewSubmitHandler(&fakeForms{cached: f, fresh: f}, &fakeStore{}, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{},
		fixedClock{}, noFloods{}, quotaFor, NopMetrics{}, noCaptchas(), noSpamChecks(), noUploads(), newMemoryTestInbox(), noHandOff(), uncounted{}, nil)
}
