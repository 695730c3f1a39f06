package application

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// requestVerification records a pending verification and queues the delivery
// that mails its link, in the caller's transaction: the mail goes through the
// delivery queue like a submission's, so it is retried on the delivery
// schedule and a mail that can never be sent fails without holding up others.
// language is the catalog language of the request that asked for it, for
// the words of its mail.
func requestVerification(ctx context.Context, tx VerificationStreams, ids IDs, tokens LinkTokens, kind verification.Kind, subjectID, accountID, email, language string, now time.Time) error {
	id := ids.New()
	v, err := verification.Request(verification.Requested{
		VerificationID: id, Kind: kind, SubjectID: subjectID, AccountID: accountID, Email: email,
		TokenHash: hexHash(tokens.Token(id)), DeliveryID: ids.New(), Language: language,
	}, now)
	if err != nil {
		return err
	}
	if err := tx.SaveVerification(ctx, v); err != nil {
		return err
	}
	return tx.QueueDelivery(ctx, v.Delivery())
}

// requestRecipientVerification mails a form's recipient a verification link
// unless the one throttle on recipient verification mails (the domain's
// verification.MaySend: per form, per address and per account) refuses it,
// whatever route asked: a new form, a changed recipientEmail or a resend.
// The recent requests are read in the caller's transaction, which locks the
// address and the account, so concurrent requests in any process count each
// other. A refusal is a *domain.TooManyRequestsError.
func requestRecipientVerification(ctx context.Context, tx recipientVerificationTx, ids IDs, tokens LinkTokens, formID, accountID, email, language string, now time.Time) error {
	recent, err := tx.RecentVerificationRequests(ctx, verification.KindRecipient, formID, accountID, email, now.Add(-verification.ThrottleWindow))
	if err != nil {
		return err
	}
	if err := verification.MaySend(recent, now); err != nil {
		return err
	}
	return requestVerification(ctx, tx, ids, tokens, verification.KindRecipient, formID, accountID, email, language, now)
}

// recipientVerificationTx is what requesting a recipient verification
// writes and reads in its transaction.
type recipientVerificationTx interface {
	VerificationStreams
	VerificationThrottle
}

// reverifyChangedRecipient mails the form's recipient a verification link
// when a settings change (a PATCH or a restore) gave it another address
// than before, and each routing recipient it added its own
// (verifyAddedRoutes); a throttled mail leaves it pending
// (mailUnlessThrottled).
func reverifyChangedRecipient(ctx context.Context, tx recipientVerificationTx, ids IDs, tokens LinkTokens, f *form.Form, before form.Settings,
	language string, now time.Time) error {
	if after := f.Settings().RecipientEmail; after != before.RecipientEmail {
		if err := mailUnlessThrottled(requestRecipientVerification(ctx, tx, ids, tokens, f.ID(), f.AccountID(), after, language, now)); err != nil {
			return err
		}
	}
	return verifyAddedRoutes(ctx, tx, ids, tokens, f, form.RouteAddresses(before.Routes), language, now)
}

// mailUnlessThrottled is requestRecipientVerification for a form change the
// throttle must not undo: the form is saved either way, and a refused mail
// leaves its recipient pending, to be verified with a resend once the
// throttle allows (GET recipient-verification says so).
func mailUnlessThrottled(err error) error {
	var tooMany *domain.TooManyRequestsError
	if errors.As(err, &tooMany) {
		return nil
	}
	return err
}

// requestRouteVerification mails a routing recipient of a form its own
// verification link, under the same throttle as the primary recipient's
// (per form, per address and per account, counted among route links).
func requestRouteVerification(ctx context.Context, tx recipientVerificationTx, ids IDs, tokens LinkTokens, formID, accountID, email, language string, now time.Time) error {
	recent, err := tx.RecentVerificationRequests(ctx, verification.KindRouteRecipient, formID, accountID, email, now.Add(-verification.ThrottleWindow))
	if err != nil {
		return err
	}
	if err := verification.MaySend(recent, now); err != nil {
		return err
	}
	return requestVerification(ctx, tx, ids, tokens, verification.KindRouteRecipient, formID, accountID, email, language, now)
}

// verifyAddedRoutes mails each routing recipient a settings change (a new
// form, a PATCH or a restore) added, and that is not verified, its own
// link; before are the routing addresses the form had. A throttled mail
// leaves the address pending, to be verified with a resend. The primary
// recipient's address is verified by the primary's own link.
func verifyAddedRoutes(ctx context.Context, tx recipientVerificationTx, ids IDs, tokens LinkTokens, f *form.Form, before []string,
	language string, now time.Time) error {
	for _, email := range f.UnverifiedRouteAddresses() {
		if strings.EqualFold(email, f.Settings().RecipientEmail) ||
			slices.ContainsFunc(before, func(b string) bool { return strings.EqualFold(b, email) }) {
			continue
		}
		if err := mailUnlessThrottled(requestRouteVerification(ctx, tx, ids, tokens, f.ID(), f.AccountID(), email, language, now)); err != nil {
			return err
		}
	}
	return nil
}
