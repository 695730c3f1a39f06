package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/verification"
)

// requestVerification records a pending verification and queues the delivery
// that mails its link, in the caller's transaction: the mail goes through the
// delivery queue like a submission's, so it is retried on the delivery
// schedule and a mail that can never be sent fails without holding up others.
func requestVerification(ctx context.Context, tx Tx, ids IDs, tokens LinkTokens, kind verification.Kind, subjectID, accountID, email string, now time.Time) error {
	id := ids.New()
	v, err := verification.Request(verification.Requested{
		VerificationID: id, Kind: kind, SubjectID: subjectID, AccountID: accountID, Email: email,
		TokenHash: hexHash(tokens.Token(id)), DeliveryID: ids.New(),
	}, now)
	if err != nil {
		return err
	}
	if err := tx.SaveVerification(ctx, v); err != nil {
		return err
	}
	return tx.QueueDelivery(ctx, v.Delivery())
}
