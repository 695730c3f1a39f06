package delivery_test

import (
	"math"
	"testing"
	"time"

	"github.com/formd/formd/domain/delivery"
)

func TestBackoff(t *testing.T) {
	tests := []struct {
		attempt int
		want    time.Duration
	}{
		{math.MinInt, 30 * time.Second},
		{-1, 30 * time.Second},
		{0, 30 * time.Second},
		{1, 30 * time.Second},
		{2, time.Minute},
		{3, 2 * time.Minute},
		{4, 4 * time.Minute},
		{5, 8 * time.Minute},
		{6, 16 * time.Minute},
		{7, 32 * time.Minute},
		{8, 64 * time.Minute},
		{9, 2 * time.Hour}, // 128m capped
		{10, 2 * time.Hour},
		{64, 2 * time.Hour},
		{1000, 2 * time.Hour},
		{math.MaxInt, 2 * time.Hour},
	}
	for _, tt := range tests {
		if got := delivery.Backoff(tt.attempt); got != tt.want {
			t.Errorf("Backoff(%d) = %v, want %v", tt.attempt, got, tt.want)
		}
	}
}

func TestBackoffNeverShrinksNorExceedsCap(t *testing.T) {
	prev := time.Duration(0)
	for attempt := 1; attempt <= 4*delivery.MaxAttempts; attempt++ {
		d := delivery.Backoff(attempt)
		if d < prev {
			t.Errorf("Backoff(%d) = %v, less than Backoff(%d) = %v", attempt, d, attempt-1, prev)
		}
		if d <= 0 || d > 2*time.Hour {
			t.Errorf("Backoff(%d) = %v, want within (0, 2h]", attempt, d)
		}
		prev = d
	}
}
