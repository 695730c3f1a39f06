package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/account"
)

// GrantFeature is `formd grant <account email> <feature>`: an operator gives
// an account a paid or manually granted feature.
type GrantFeature struct {
	Email   string
	Feature string
	// Operator names who ran the command, for the audit trail.
	Operator string
}

// GrantFeatureHandler records a grant on the account's stream; the
// entitlements read model that submissions consult is projected from it.
type GrantFeatureHandler struct {
	tx    Transactor
	read  AccountReader
	clock Clock
}

// NewGrantFeatureHandler builds the handler; every dependency is required.
func NewGrantFeatureHandler(tx Transactor, read AccountReader, clock Clock) *GrantFeatureHandler {
	if tx == nil || read == nil || clock == nil {
		panic("application: nil dependency of GrantFeatureHandler")
	}
	return &GrantFeatureHandler{tx: tx, read: read, clock: clock}
}

// Handle grants the feature; an unknown email is domain.ErrNotFound.
func (h *GrantFeatureHandler) Handle(ctx context.Context, cmd GrantFeature) error {
	acc, err := h.read.AccountByEmail(ctx, account.NormalizeEmail(cmd.Email))
	if err != nil {
		return err
	}
	return changeAccountAsOperator(ctx, h.tx, h.clock, acc.ID, cmd.Operator, func(a *account.Account, now time.Time) error {
		return a.GrantFeature(cmd.Feature, now)
	})
}
