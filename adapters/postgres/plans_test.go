package postgres_test

import (
	"slices"
	"testing"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
)

// A plan change and a revocation are projected in the transaction that
// records them; a feature is held through a grant or through the plan.
func TestPlansAndGrantsAreProjected(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	accountID, _ := e.seedForm(t)
	change := func(fn func(a *account.Account) error) {
		t.Helper()
		e.run(t, func(tx application.Tx) error {
			a, err := tx.LoadAccount(e.ctx, accountID)
			if err != nil {
				return err
			}
			if err := fn(a); err != nil {
				return err
			}
			return tx.SaveAccount(e.ctx, a)
		})
	}
	has := func(feature string) bool {
		t.Helper()
		ok, err := e.read.Has(e.ctx, accountID, feature)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	rec, err := e.read.AccountPlan(e.ctx, accountID)
	if err != nil || rec.Plan != account.PlanFree || len(rec.Grants) != 0 || rec.Email != accountID+"@example.com" {
		t.Fatalf("a new account: %+v, %v", rec, err)
	}
	if has(account.FeatureWildcardDomains) {
		t.Fatal("the free plan holds advanced_domains")
	}

	now := time.Now()
	change(func(a *account.Account) error { return a.SetPlan(account.PlanLifetime, now) })
	change(func(a *account.Account) error { return a.GrantFeature(account.FeatureCC, now) })
	change(func(a *account.Account) error { return a.GrantFeature(account.FeatureWebhook, now) })
	rec, err = e.read.AccountPlan(e.ctx, accountID)
	if err != nil || rec.Plan != account.PlanLifetime || !slices.Equal(rec.Grants, []string{account.FeatureCC, account.FeatureWebhook}) {
		t.Fatalf("after plan and grants: %+v, %v", rec, err)
	}
	if !has(account.FeatureWildcardDomains) || !has(account.FeatureCC) || has(account.FeatureServerSide) {
		t.Fatal("lifetime with a cc grant: want advanced_domains and cc_recipients, nothing else")
	}

	change(func(a *account.Account) error { return a.RevokeFeature(account.FeatureCC, false, now) })
	change(func(a *account.Account) error { return a.SetPlan(account.PlanFree, now) })
	rec, err = e.read.AccountPlan(e.ctx, accountID)
	if err != nil || rec.Plan != account.PlanFree || !slices.Equal(rec.Grants, []string{account.FeatureWebhook}) {
		t.Fatalf("after the revocation and back to free: %+v, %v", rec, err)
	}
	if has(account.FeatureWildcardDomains) || has(account.FeatureCC) || !has(account.FeatureWebhook) {
		t.Fatal("free with a webhook grant: want per_submit_webhook only")
	}
	a, err := loadAccount(e, accountID)
	if err != nil || a.Plan() != account.PlanFree || !slices.Equal(a.Grants(), []string{account.FeatureWebhook}) {
		t.Fatalf("the rehydrated account: %v, %v", a, err)
	}
}

func loadAccount(e uowEnv, id string) (*account.Account, error) {
	var out *account.Account
	err := e.tx.InTx(e.ctx, testMetadata("read"), func(tx application.Tx) error {
		a, err := tx.LoadAccount(e.ctx, id)
		out = a
		return err
	})
	return out, err
}
