package verification_test

import (
	"errors"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/verification"
)

func TestMayRequestReset(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ago := func(minutes ...int) []time.Time {
		var out []time.Time
		for _, m := range minutes {
			out = append(out, now.Add(-time.Duration(m)*time.Minute))
		}
		return out
	}
	tests := []struct {
		name    string
		earlier []time.Time
		wait    time.Duration // 0: allowed
	}{
		{"first request", nil, 0},
		{"third in a burst", ago(0, 0), 0},
		{"fourth in a burst", ago(0, 0, 0), 20 * time.Minute},
		{"fourth, a burst 5 minutes ago", ago(5, 5, 5), 15 * time.Minute},
		{"fourth, a burst 20 minutes ago", ago(20, 20, 20), 0},
		{"one per 20 minutes after the burst", ago(45, 45, 45, 25, 5), 15 * time.Minute},
		{"any order", ago(5, 45, 25, 45, 45), 15 * time.Minute},
		{"a burst an hour ago is forgotten", ago(60, 60, 60), 0},
		{"a steady one per 20 minutes keeps one token", ago(100, 80, 60, 40, 20, 0), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := verification.MayRequestReset(tt.earlier, now)
			if tt.wait == 0 {
				if err != nil {
					t.Fatalf("MayRequestReset = %v, want allowed", err)
				}
				return
			}
			var tooMany *domain.TooManyRequestsError
			if !errors.As(err, &tooMany) {
				t.Fatalf("MayRequestReset = %v, want TooManyRequestsError", err)
			}
			if tooMany.RetryAfter != tt.wait {
				t.Errorf("RetryAfter = %v, want %v", tooMany.RetryAfter, tt.wait)
			}
		})
	}
}
