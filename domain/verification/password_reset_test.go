package verification_test

import (
	"errors"
	"testing"
	"time"

	"github.com/formd/formd/domain/verification"
)

// A password reset link hands over the whole account, so it lives an hour,
// not the 72 hours of a verification link, and like them verifies once and
// only while it is the newest.
func TestPasswordResetLinksExpireAfterAnHour(t *testing.T) {
	r := verificationRequested(verification.KindPasswordReset)
	v, err := verification.Request(r, verificationT0)
	if err != nil {
		t.Fatal(err)
	}
	if want := verificationT0.UTC().Add(time.Hour); v.ExpiresAt != want || verification.LifetimeOf(verification.KindPasswordReset) != time.Hour {
		t.Errorf("ExpiresAt = %v, want %v", v.ExpiresAt, want)
	}
	if err := v.Complete(verificationT0.Add(time.Hour), true); !errors.Is(err, verification.ErrExpired) {
		t.Errorf("Complete after an hour = %v, want ErrExpired", err)
	}
	if err := v.Complete(verificationT0.Add(59*time.Minute), false); !errors.Is(err, verification.ErrSuperseded) {
		t.Errorf("Complete of an older link = %v, want ErrSuperseded", err)
	}
	if err := v.Complete(verificationT0.Add(59*time.Minute), true); err != nil {
		t.Fatalf("Complete in time = %v", err)
	}
	if err := v.Complete(verificationT0.Add(59*time.Minute), true); !errors.Is(err, verification.ErrAlreadyUsed) {
		t.Errorf("Complete again = %v, want ErrAlreadyUsed", err)
	}
}

func TestVerificationLinksStillLast72Hours(t *testing.T) {
	for _, k := range []verification.Kind{verification.KindAccount, verification.KindRecipient} {
		if verification.LifetimeOf(k) != 72*time.Hour {
			t.Errorf("LifetimeOf(%s) = %v, want 72h", k, verification.LifetimeOf(k))
		}
	}
}
