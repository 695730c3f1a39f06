package verification_test

import (
	"errors"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/verification"
)

func TestMaySend(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ago := func(ds ...time.Duration) []time.Time {
		var out []time.Time
		for _, d := range ds {
			out = append(out, now.Add(-d))
		}
		return out
	}
	minutesAgo := func(ms ...int) []time.Time {
		var out []time.Time
		for _, m := range ms {
			out = append(out, now.Add(-time.Duration(m)*time.Minute))
		}
		return out
	}
	tests := []struct {
		name   string
		recent verification.RecentRequests
		wait   time.Duration // 0: allowed
	}{
		{"first mail", verification.RecentRequests{}, 0},
		{"right after the last", verification.RecentRequests{ForSubject: ago(time.Second), ForAddress: ago(time.Second), ForAccount: ago(time.Second)}, 0},
		{"fifth for the form this hour", verification.RecentRequests{ForSubject: ago(50*time.Minute, 40*time.Minute, 30*time.Minute, 20*time.Minute)}, 0},
		{"sixth for the form this hour", verification.RecentRequests{ForSubject: ago(50*time.Minute, 40*time.Minute, 30*time.Minute, 20*time.Minute, 10*time.Minute)}, 10 * time.Minute},
		{"older mails do not count", verification.RecentRequests{ForSubject: ago(3*time.Hour, 2*time.Hour, 90*time.Minute, 70*time.Minute, 61*time.Minute)}, 0},
		{"the address's hourly limit across forms", verification.RecentRequests{ForAddress: minutesAgo(55, 50, 45, 40, 35, 30, 25, 20, 15, 10)}, 5 * time.Minute},
		{"the account's hourly limit across addresses", verification.RecentRequests{ForAccount: minutesAgo(59, 57, 54, 51, 48, 45, 42, 39, 36, 33, 30, 27, 24, 21, 18, 15, 12, 9, 6, 3)}, time.Minute},
		{"nineteen for the account", verification.RecentRequests{ForAccount: minutesAgo(57, 54, 51, 48, 45, 42, 39, 36, 33, 30, 27, 24, 21, 18, 15, 12, 9, 6, 3)}, 0},
		{"the longest wait of the limits", verification.RecentRequests{
			ForSubject: minutesAgo(50, 45, 40, 35, 30),
			ForAddress: minutesAgo(55, 50, 45, 40, 35, 30, 25, 20, 15, 10)}, 10 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := verification.MaySend(tt.recent, now)
			if tt.wait == 0 {
				if err != nil {
					t.Fatalf("MaySend = %v, want allowed", err)
				}
				return
			}
			var tooMany *domain.TooManyRequestsError
			if !errors.As(err, &tooMany) {
				t.Fatalf("MaySend = %v, want TooManyRequestsError", err)
			}
			if tooMany.RetryAfter != tt.wait {
				t.Errorf("RetryAfter = %v, want %v", tooMany.RetryAfter, tt.wait)
			}
		})
	}
}
