package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
)

// AccountPlan implements application.AccountPlans.
func (r *ReadModel) AccountPlan(ctx context.Context, accountID string) (application.AccountPlanRecord, error) {
	var a application.AccountPlanRecord
	var plan string
	err := r.pool.QueryRow(ctx, `
		SELECT a.id::text, a.email, a.email_verified, a.plan,
		       coalesce((SELECT array_agg(e.feature ORDER BY e.feature) FROM entitlements e WHERE e.account_id = a.id), '{}')
		FROM accounts a WHERE a.id = $1`, accountID).Scan(&a.ID, &a.Email, &a.EmailVerified, &plan, &a.Grants)
	a.Plan = account.Plan(plan)
	return a, notFound(err)
}

// PlanUsage implements application.AccountPlans.
func (r *ReadModel) PlanUsage(ctx context.Context, accountID string, month account.Month) (account.Plan, int, error) {
	var plan string
	var used int
	err := r.pool.QueryRow(ctx, `
		SELECT a.plan, coalesce((SELECT u.used FROM submission_quota_usage u WHERE u.account_id = a.id AND u.month = $2), 0)
		FROM accounts a WHERE a.id = $1`, accountID, month.Start()).Scan(&plan, &used)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", 0, domain.ErrNotFound
	}
	return account.Plan(plan), used, err
}

// PlanOf implements application.Entitlements.
func (r *ReadModel) PlanOf(ctx context.Context, accountID string) (account.Plan, error) {
	var plan string
	err := r.pool.QueryRow(ctx, `SELECT plan FROM accounts WHERE id = $1`, accountID).Scan(&plan)
	return account.Plan(plan), notFound(err)
}

// Has implements application.Entitlements: a feature is held through a
// manual grant or through the account's plan.
func (r *ReadModel) Has(ctx context.Context, accountID, feature string) (bool, error) {
	plans := account.PlansIncluding(feature)
	names := make([]string, len(plans))
	for i, p := range plans {
		names[i] = string(p)
	}
	var ok bool
	err := r.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM entitlements WHERE account_id = $1 AND feature = $2)
		OR EXISTS (SELECT 1 FROM accounts WHERE id = $1 AND plan = ANY($3::text[]))`, accountID, feature, names).Scan(&ok)
	return ok, err
}
