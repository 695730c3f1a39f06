package application

import (
	"context"

	"github.com/formd/formd/domain/account"
)

// AccountPlans reads what accounts are on and have used: plans, manual
// grants and monthly quota usage (read models).
type AccountPlans interface {
	// AccountPlan reads an account with its plan and manual grants.
	AccountPlan(ctx context.Context, accountID string) (AccountPlanRecord, error)
	// PlanUsage reads an account's plan and how many submissions were
	// counted against its quota in month.
	PlanUsage(ctx context.Context, accountID string, month account.Month) (account.Plan, int, error)
}

// AccountPlanRecord is an account with its plan and manual grants, as the
// read side knows them.
type AccountPlanRecord struct {
	AccountRecord
	Plan account.Plan
	// Grants are the features granted by hand, sorted; they include grants
	// made before grants were events, which only the read model holds.
	Grants []string
}

// Entitlements says which paid or manually granted features an account has,
// and which plan it is on (for limits a plan sets, such as archive retention).
type Entitlements interface {
	Has(ctx context.Context, accountID, feature string) (bool, error)
	// PlanOf is the account's plan.
	PlanOf(ctx context.Context, accountID string) (account.Plan, error)
}

// SubmissionCounts counts what forms accepted (a read model).
type SubmissionCounts interface {
	// SubmissionsByForm maps each of the account's forms that accepted live
	// submissions in month to how many; forms without any are absent.
	SubmissionsByForm(ctx context.Context, accountID string, month account.Month) (map[string]int, error)
}
