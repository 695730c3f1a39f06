package portkit

import (
	"testing"
	"time"

	"github.com/formd/formd/application"
)

// The next step follows the verification's stage; only the words of a
// pending one are the port's.
func TestTheNextStepFollowsTheStage(t *testing.T) {
	steps := VerificationSteps{NotSent: func(e string) string { return "not sent to " + e }, Sent: func(e string) string { return "sent to " + e }}
	expires := time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		v    application.VerificationRecord
		want string
	}{
		{application.VerificationRecord{Email: "r@example.test", Status: "verified", DeliveryID: "d1"}, "The recipient is verified; live submissions are accepted."},
		{application.VerificationRecord{Email: "r@example.test", Status: "pending"}, "not sent to r@example.test"},
		{application.VerificationRecord{Email: "r@example.test", Status: "pending", DeliveryID: "d1", ExpiresAt: expires}, "sent to r@example.test"},
	} {
		got := PresentRecipientVerification("f1", tc.v, steps)
		if got.NextStep != tc.want || got.FormID != "f1" || got.RecipientEmail != "r@example.test" {
			t.Errorf("%+v: got %+v, want next step %q", tc.v, got, tc.want)
		}
		if !tc.v.ExpiresAt.IsZero() && (got.ExpiresAt == nil || got.ExpiresAt.Location() != time.UTC || !got.ExpiresAt.Equal(expires)) {
			t.Errorf("expiry %v, want %v in UTC", got.ExpiresAt, expires)
		}
	}
}
