package application

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/formd/formd/domain/account"
)

// RevokeFeature is `formd revoke <account email> <feature>`: an operator
// withdraws a manual grant.
type RevokeFeature struct {
	Email   string
	Feature string
	// Operator names who ran the command, for the audit trail.
	Operator string
}

// RevokeFeatureHandler records the revocation on the account's stream; the
// entitlements read model drops the grant in the same transaction.
type RevokeFeatureHandler struct {
	tx    Transactor
	read  AccountReader
	plans AccountPlans
	clock Clock
}

// NewRevokeFeatureHandler builds the handler; every dependency is required.
func NewRevokeFeatureHandler(tx Transactor, read AccountReader, plans AccountPlans, clock Clock) *RevokeFeatureHandler {
	if tx == nil || read == nil || plans == nil || clock == nil {
		panic("application: nil dependency of RevokeFeatureHandler")
	}
	return &RevokeFeatureHandler{tx: tx, read: read, plans: plans, clock: clock}
}

// Handle revokes the grant; a feature the account was not granted is
// refused, an unknown email is domain.ErrNotFound.
func (h *RevokeFeatureHandler) Handle(ctx context.Context, cmd RevokeFeature) error {
	acc, err := h.read.AccountByEmail(ctx, account.NormalizeEmail(cmd.Email))
	if err != nil {
		return err
	}
	// Grants made before grants were events are known to the read model only.
	rec, err := h.plans.AccountPlan(ctx, acc.ID)
	if err != nil {
		return err
	}
	granted := slices.Contains(rec.Grants, strings.TrimSpace(cmd.Feature))
	return changeAccountAsOperator(ctx, h.tx, h.clock, acc.ID, cmd.Operator, func(a *account.Account, now time.Time) error {
		return a.RevokeFeature(cmd.Feature, granted, now)
	})
}
