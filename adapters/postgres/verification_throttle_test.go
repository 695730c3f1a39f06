package postgres_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/verification"
)

// The throttle on recipient verification mails holds under concurrency:
// requests racing in separate transactions (as in separate processes) for
// one address, or for one account, send exactly the limit, never more.
func TestRecipientVerificationThrottleHoldsAcrossConcurrentTransactions(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	for name, tc := range map[string]struct {
		sameAddress bool
		want        int
	}{
		"one address, many accounts":  {sameAddress: true, want: verification.MaxPerAddressPerHour},
		"one account, many addresses": {sameAddress: false, want: verification.MaxPerAccountPerHour},
	} {
		t.Run(name, func(t *testing.T) {
			address, accountID := uuid.NewString()+"@example.com", uuid.NewString()
			const racers = 40
			sent, refused := race(t, racers, func(int) error {
				email, acct := strings.ToUpper(address[:1])+address[1:], accountID
				if !tc.sameAddress {
					email = uuid.NewString() + "@example.com"
				} else {
					acct = uuid.NewString()
				}
				subject := uuid.NewString()
				return e.tx.InTx(e.ctx, testMetadata("throttle"), func(tx application.Tx) error {
					now := time.Now()
					recent, err := tx.RecentVerificationRequests(e.ctx, verification.KindRecipient, subject, acct, email, now.Add(-verification.ThrottleWindow))
					if err != nil {
						return err
					}
					if err := verification.MaySend(recent, now); err != nil {
						return err
					}
					id := uuid.NewString()
					v, err := verification.Request(verification.Requested{VerificationID: id, Kind: verification.KindRecipient,
						SubjectID: subject, AccountID: acct, Email: email, TokenHash: strings.ReplaceAll(uuid.NewString(), "-", ""),
						DeliveryID: uuid.NewString()}, now)
					if err != nil {
						return err
					}
					return tx.SaveVerification(e.ctx, v)
				})
			})
			if sent != tc.want || refused != racers-tc.want {
				t.Errorf("%d sent, %d refused; want %d sent", sent, refused, tc.want)
			}
		})
	}
}

// Password reset requests racing for one address (whatever its case) are
// let through exactly as many as the burst.
func TestPasswordResetLimitHoldsAcrossConcurrentTransactions(t *testing.T) {
	t.Parallel()
	e := newUoWEnv(t)
	address := uuid.NewString() + "@example.com"
	const racers = 12
	sent, refused := race(t, racers, func(i int) error {
		email := address
		if i%2 == 1 {
			email = strings.ToUpper(address)
		}
		return e.tx.InTx(e.ctx, testMetadata("reset"), func(tx application.Tx) error {
			now := time.Now()
			earlier, err := tx.PasswordResetRequests(e.ctx, email, now.Add(-verification.ResetRequestLookback))
			if err != nil {
				return err
			}
			if err := verification.MayRequestReset(earlier, now); err != nil {
				return err
			}
			return tx.RecordPasswordResetRequest(e.ctx, email, now)
		})
	})
	if sent != verification.ResetRequestBurst || refused != racers-verification.ResetRequestBurst {
		t.Errorf("%d let through, %d refused; want %d let through", sent, refused, verification.ResetRequestBurst)
	}
}

// race runs attempt racers times at once, each with its index, and counts
// the attempts that succeeded and those refused with a
// *domain.TooManyRequestsError; any other error fails the test.
func race(t *testing.T, racers int, attempt func(i int) error) (sent, refused int) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := attempt(i)
			mu.Lock()
			defer mu.Unlock()
			var tooMany *domain.TooManyRequestsError
			switch {
			case err == nil:
				sent++
			case errors.As(err, &tooMany):
				refused++
			default:
				t.Errorf("InTx: %v", err)
			}
		}()
	}
	wg.Wait()
	return sent, refused
}
