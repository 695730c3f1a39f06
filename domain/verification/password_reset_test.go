package verification_test

import (
	"errors"
	"testing"
	"time"

	"github.com/formd/formd/domain/verification"
)

// A password reset link hands over the whole account, so it lives an hour,
// not the 72 hours of a verification link, and like them is used once; a
// newer link does not spend it, a password reset since does.
func TestPasswordResetLinksExpireAfterAnHour(t *testing.T) {
	r := verificationRequested(verification.KindPasswordReset)
	v, err := verification.Request(r, verificationT0)
	if err != nil {
		t.Fatal(err)
	}
	if want := verificationT0.UTC().Add(time.Hour); v.ExpiresAt != want || verification.LifetimeOf(verification.KindPasswordReset) != time.Hour {
		t.Errorf("ExpiresAt = %v, want %v", v.ExpiresAt, want)
	}
	if err := v.CompleteReset(verificationT0.Add(time.Hour), time.Time{}); !errors.Is(err, verification.ErrExpired) {
		t.Errorf("CompleteReset after an hour = %v, want ErrExpired", err)
	}
	if err := v.CompleteReset(verificationT0.Add(59*time.Minute), verificationT0.Add(time.Minute)); !errors.Is(err, verification.ErrPasswordResetSince) {
		t.Errorf("CompleteReset after a reset with another link = %v, want ErrPasswordResetSince", err)
	}
	if err := v.CompleteReset(verificationT0.Add(59*time.Minute), verificationT0.Add(-time.Minute)); err != nil {
		t.Fatalf("CompleteReset in time, the last reset before the link = %v", err)
	}
	if err := v.CompleteReset(verificationT0.Add(59*time.Minute), time.Time{}); !errors.Is(err, verification.ErrAlreadyUsed) {
		t.Errorf("CompleteReset again = %v, want ErrAlreadyUsed", err)
	}
}

func TestVerificationLinksStillLast72Hours(t *testing.T) {
	for _, k := range []verification.Kind{verification.KindAccount, verification.KindRecipient} {
		if verification.LifetimeOf(k) != 72*time.Hour {
			t.Errorf("LifetimeOf(%s) = %v, want 72h", k, verification.LifetimeOf(k))
		}
	}
}
