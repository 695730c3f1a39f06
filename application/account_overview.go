package application

import (
	"context"

	"github.com/formd/formd/domain/account"
)

// AccountOverview is GET /v1/account: what the caller's account is on, holds
// and has used this month.
type AccountOverview struct {
	Caller Session
}

// AccountSummary answers AccountOverview.
type AccountSummary struct {
	ID            string
	Email         string
	EmailVerified bool
	Plan          account.Plan
	// Entitlements are every feature held, through the plan or a grant;
	// Grants the manual ones among them.
	Entitlements []string
	Grants       []string
	// Usage is this calendar month's (UTC) count against the plan's quota.
	Usage account.Usage
}

// AccountOverviewHandler reads the plan, grants and quota usage.
type AccountOverviewHandler struct {
	plans  AccountPlans
	clock  Clock
	quotas account.Quotas
}

// NewAccountOverviewHandler builds the handler; every dependency is required.
func NewAccountOverviewHandler(plans AccountPlans, clock Clock, quotas account.Quotas) *AccountOverviewHandler {
	if plans == nil || clock == nil {
		panic("application: nil dependency of AccountOverviewHandler")
	}
	return &AccountOverviewHandler{plans: plans, clock: clock, quotas: quotas}
}

// Handle reads the caller's account.
func (h *AccountOverviewHandler) Handle(ctx context.Context, q AccountOverview) (AccountSummary, error) {
	// The account is above any workspace: a workspace token does not see it.
	if err := q.Caller.Access.RequireSession(account.ErrTokensSeeNoAccount); err != nil {
		return AccountSummary{}, err
	}
	rec, err := h.plans.AccountPlan(ctx, q.Caller.AccountID)
	if err != nil {
		return AccountSummary{}, err
	}
	month := account.MonthOf(h.clock.Now())
	plan, used, err := h.plans.PlanUsage(ctx, rec.ID, month)
	if err != nil {
		return AccountSummary{}, err
	}
	return AccountSummary{
		ID: rec.ID, Email: rec.Email, EmailVerified: rec.EmailVerified, Plan: plan,
		Entitlements: account.Entitled(plan, rec.Grants), Grants: rec.Grants,
		Usage: account.Usage{Plan: plan, Quota: h.quotas.Of(plan), Used: used, Month: month},
	}, nil
}
