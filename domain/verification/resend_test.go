package verification_test

import (
	"errors"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/verification"
)

func TestMayResend(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ago := func(ds ...time.Duration) []time.Time {
		var out []time.Time
		for _, d := range ds {
			out = append(out, now.Add(-d))
		}
		return out
	}
	tests := []struct {
		name                   string
		forSubject, forAddress []time.Time
		wait                   time.Duration // 0: allowed
	}{
		{"first mail", nil, nil, 0},
		{"right after the last", ago(time.Second), ago(time.Second), 0},
		{"fifth for the form this hour", ago(50*time.Minute, 40*time.Minute, 30*time.Minute, 20*time.Minute), nil, 0},
		{"sixth for the form this hour", ago(50*time.Minute, 40*time.Minute, 30*time.Minute, 20*time.Minute, 10*time.Minute), nil, 10 * time.Minute},
		{"older mails do not count", ago(3*time.Hour, 2*time.Hour, 90*time.Minute, 70*time.Minute, 61*time.Minute), nil, 0},
		{"the address's hourly limit across forms", nil,
			ago(55*time.Minute, 50*time.Minute, 45*time.Minute, 40*time.Minute, 35*time.Minute,
				30*time.Minute, 25*time.Minute, 20*time.Minute, 15*time.Minute, 10*time.Minute), 5 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := verification.MayResend(tt.forSubject, tt.forAddress, now)
			if tt.wait == 0 {
				if err != nil {
					t.Fatalf("MayResend = %v, want allowed", err)
				}
				return
			}
			var tooMany *domain.TooManyRequestsError
			if !errors.As(err, &tooMany) {
				t.Fatalf("MayResend = %v, want TooManyRequestsError", err)
			}
			if tooMany.RetryAfter != tt.wait {
				t.Errorf("RetryAfter = %v, want %v", tooMany.RetryAfter, tt.wait)
			}
		})
	}
}
