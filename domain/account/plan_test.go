package account_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/domaintest"
)

func registeredWith(t *testing.T, more ...account.Event) *account.Account {
	t.Helper()
	a, err := account.FromHistory(append([]account.Event{account.Registered{AccountID: "acct-1", Email: "ada@example.com", WorkspaceID: "ws-1"}}, more...))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestPlansAndTheirFeatures(t *testing.T) {
	if got := registeredWith(t).Plan(); got != account.PlanFree {
		t.Errorf("a new account's plan = %q, want free", got)
	}
	for _, tt := range []struct {
		plan account.Plan
		want []string
	}{
		{account.PlanFree, nil},
		{account.PlanPro, []string{account.FeatureWildcardDomains}},
		{account.PlanLifetime, []string{account.FeatureWildcardDomains}},
	} {
		if got := tt.plan.Features(); !slices.Equal(got, tt.want) {
			t.Errorf("%s.Features() = %v, want %v", tt.plan, got, tt.want)
		}
	}
	if got := account.PlansIncluding(account.FeatureWildcardDomains); !slices.Equal(got, []account.Plan{account.PlanPro, account.PlanLifetime}) {
		t.Errorf("PlansIncluding(advanced_domains) = %v", got)
	}
	if got := account.PlansIncluding(account.FeatureCC); len(got) != 0 {
		t.Errorf("PlansIncluding(cc_recipients) = %v: manual grants stay per feature", got)
	}
	if got := account.Entitled(account.PlanPro, []string{account.FeatureCC, account.FeatureWildcardDomains}); !slices.Equal(got,
		[]string{account.FeatureWildcardDomains, account.FeatureCC}) {
		t.Errorf("Entitled = %v, want each feature once, sorted", got)
	}
}

func TestParsePlan(t *testing.T) {
	for in, want := range map[string]account.Plan{"free": account.PlanFree, " Pro ": account.PlanPro, "LIFETIME": account.PlanLifetime} {
		if got, err := account.ParsePlan(in); err != nil || got != want {
			t.Errorf("ParsePlan(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "enterprise", "pro plan"} {
		_, err := account.ParsePlan(in)
		domaintest.ExpectRefusal(t, err, "plan")
	}
}

func TestSetPlan(t *testing.T) {
	a := registeredWith(t)
	if err := a.SetPlan(account.PlanPro, accountT0); err != nil {
		t.Fatal(err)
	}
	want := []account.Event{account.PlanChanged{Plan: account.PlanPro, Previous: account.PlanFree, At: accountT0.UTC()}}
	if !reflect.DeepEqual(a.Changes(), want) || a.Plan() != account.PlanPro {
		t.Fatalf("changes %+v, plan %q", a.Changes(), a.Plan())
	}

	a = registeredWith(t, account.PlanChanged{Plan: account.PlanLifetime, Previous: account.PlanFree})
	if err := a.SetPlan(account.PlanLifetime, accountT0); err != nil || len(a.Changes()) != 0 {
		t.Fatalf("setting the current plan: %v, changes %+v; want nothing recorded", err, a.Changes())
	}
	if err := a.SetPlan(account.PlanFree, accountT0); err != nil || a.Plan() != account.PlanFree {
		t.Fatalf("back to free: %v, plan %q", err, a.Plan())
	}
	domaintest.ExpectRefusal(t, a.SetPlan("gold", accountT0), "plan")
}

func TestRevokeFeature(t *testing.T) {
	tests := []struct {
		name      string
		history   []account.Event
		feature   string
		legacy    bool
		wantField string
		wantMsg   string
	}{
		{name: "a manual grant", history: []account.Event{account.FeatureGranted{Feature: account.FeatureCC}}, feature: " cc_recipients "},
		{name: "a grant made before grants were events", feature: account.FeatureCC, legacy: true},
		{name: "a feature never granted", feature: account.FeatureCC, wantField: "feature", wantMsg: "no manual grant"},
		{name: "a feature the plan includes", history: []account.Event{account.PlanChanged{Plan: account.PlanPro}},
			feature: account.FeatureWildcardDomains, wantField: "feature", wantMsg: "change the plan"},
		{name: "a revoked grant", history: []account.Event{account.FeatureGranted{Feature: account.FeatureCC}, account.FeatureRevoked{Feature: account.FeatureCC}},
			feature: account.FeatureCC, wantField: "feature"},
		{name: "no such feature", feature: "cc_recipient", legacy: true, wantField: "feature", wantMsg: "must be one of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := registeredWith(t, tt.history...)
			err := a.RevokeFeature(tt.feature, tt.legacy, accountT0)
			if tt.wantField != "" {
				domaintest.ExpectRefusal(t, err, tt.wantField)
				if !strings.Contains(err.Error(), tt.wantMsg) || len(a.Changes()) != 0 {
					t.Errorf("error %q (want %q), changes %+v", err, tt.wantMsg, a.Changes())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := []account.Event{account.FeatureRevoked{Feature: account.FeatureCC, At: accountT0.UTC()}}
			if !reflect.DeepEqual(a.Changes(), want) || a.HasFeature(account.FeatureCC) || len(a.Grants()) != 0 {
				t.Errorf("changes %+v, grants %v", a.Changes(), a.Grants())
			}
		})
	}
}

func TestGrantRefusesAnUnknownFeature(t *testing.T) {
	domaintest.ExpectRefusal(t, registeredWith(t).GrantFeature("cc", accountT0), "feature")
}

func TestPlanEventTypesArePinned(t *testing.T) {
	if got := (account.PlanChanged{}).EventType(); got != "account.plan_changed.v1" {
		t.Errorf("PlanChanged = %q", got)
	}
	if got := (account.FeatureRevoked{}).EventType(); got != "account.feature_revoked.v1" {
		t.Errorf("FeatureRevoked = %q", got)
	}
}

func TestQuotaMonthsAreCalendarMonthsInUTC(t *testing.T) {
	q := account.Quotas{Free: 1000, Pro: 50000, Lifetime: 20000}
	if q.Of(account.PlanFree) != 1000 || q.Of(account.PlanPro) != 50000 || q.Of(account.PlanLifetime) != 20000 {
		t.Errorf("Of: %d %d %d", q.Of(account.PlanFree), q.Of(account.PlanPro), q.Of(account.PlanLifetime))
	}
	// 23:30 on 30 November in New York is already December in UTC.
	ny := time.FixedZone("EST", -5*3600)
	for _, tt := range []struct {
		at         time.Time
		month      string
		start, end time.Time
	}{
		{time.Date(2026, 11, 30, 18, 0, 0, 0, ny), "2026-11", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(2026, 11, 30, 19, 0, 0, 0, ny), "2026-12", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(2028, 2, 29, 23, 59, 59, 0, time.UTC), "2028-02", time.Date(2028, 2, 1, 0, 0, 0, 0, time.UTC), time.Date(2028, 3, 1, 0, 0, 0, 0, time.UTC)},
	} {
		m := account.MonthOf(tt.at)
		if m.String() != tt.month || !m.Start().Equal(tt.start) || !m.End().Equal(tt.end) || m.End().Location() != time.UTC {
			t.Errorf("MonthOf(%v) = %s [%v, %v)", tt.at, m, m.Start(), m.End())
		}
	}
	u := account.Usage{Plan: account.PlanPro, Quota: 3, Used: 2, Month: account.MonthOf(time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC))}
	if u.Exhausted() || u.Remaining() != 1 {
		t.Errorf("2 of 3: exhausted %v, remaining %d", u.Exhausted(), u.Remaining())
	}
	u.Used = 4
	if !u.Exhausted() || u.Remaining() != 0 {
		t.Errorf("4 of 3: exhausted %v, remaining %d", u.Exhausted(), u.Remaining())
	}
	if got := u.ExhaustedMessage(); got != "Monthly submission quota of 3 for the pro plan is used up; it resets on 2027-01-01T00:00:00Z." {
		t.Errorf("ExhaustedMessage = %q", got)
	}
}

func TestEveryPlanBoundsArchiveRetention(t *testing.T) {
	want := map[account.Plan]int{account.PlanFree: 30, account.PlanPro: 365, account.PlanLifetime: 365}
	for _, p := range account.Plans {
		if got := p.ArchiveRetentionDays(); got != want[p] {
			t.Errorf("%s: archive retention %d days, want %d", p, got, want[p])
		}
	}
}
