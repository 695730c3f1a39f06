package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/account"
)

// changeAccountAsOperator applies change to the account in one transaction
// whose actor is the operator who ran the command, so every operator
// command (plan set, grant, revoke) lands in the account's audit trail the
// same way.
func changeAccountAsOperator(ctx context.Context, t Transactor, clock Clock, accountID, operator string,
	change func(a *account.Account, now time.Time) error) error {
	md := Metadata{Actor: Actor{Type: ActorOperator, ID: operator}, AccountID: accountID}
	now := clock.Now()
	return t.InTx(ctx, md, func(tx Tx) error {
		a, err := tx.LoadAccount(ctx, accountID)
		if err != nil {
			return err
		}
		if err := change(a, now); err != nil {
			return err
		}
		return tx.SaveAccount(ctx, a)
	})
}
