package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/verification"
)

// requestVerification records a pending verification whose email the
// verification mailer sends when the event arrives.
func requestVerification(ctx context.Context, tx Tx, ids IDs, tokens LinkTokens, kind verification.Kind, subjectID, accountID, email string, now time.Time) error {
	id := ids.New()
	v, err := verification.Request(verification.Requested{
		VerificationID: id, Kind: kind, SubjectID: subjectID, AccountID: accountID, Email: email,
		TokenHash: hexHash(tokens.Token(id)), DeliveryID: ids.New(),
	}, now)
	if err != nil {
		return err
	}
	return tx.SaveVerification(ctx, v)
}
