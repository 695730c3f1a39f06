package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/account"
)

// SetPlan is `formd plan set <account email> <plan>`: an operator moves an
// account to another plan.
type SetPlan struct {
	Email string
	Plan  string
	// Operator names who ran the command, for the audit trail.
	Operator string
}

// SetPlanHandler records the change on the account's stream; the accounts
// read model, which quotas and entitlements consult, is projected from it.
type SetPlanHandler struct {
	tx    Transactor
	read  AccountReader
	clock Clock
}

// NewSetPlanHandler builds the handler; every dependency is required.
func NewSetPlanHandler(tx Transactor, read AccountReader, clock Clock) *SetPlanHandler {
	if tx == nil || read == nil || clock == nil {
		panic("application: nil dependency of SetPlanHandler")
	}
	return &SetPlanHandler{tx: tx, read: read, clock: clock}
}

// Handle sets the plan; an unknown plan is refused naming the plans, an
// unknown email is domain.ErrNotFound.
func (h *SetPlanHandler) Handle(ctx context.Context, cmd SetPlan) error {
	plan, err := account.ParsePlan(cmd.Plan)
	if err != nil {
		return err
	}
	acc, err := h.read.AccountByEmail(ctx, account.NormalizeEmail(cmd.Email))
	if err != nil {
		return err
	}
	return changeAccountAsOperator(ctx, h.tx, h.clock, acc.ID, cmd.Operator, func(a *account.Account, now time.Time) error {
		return a.SetPlan(plan, now)
	})
}
