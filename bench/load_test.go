package main

import (
	"math"
	"slices"
	"testing"
	"time"
)

// gapStats is the mean and the coefficient of variation of the gaps between
// consecutive offsets.
func gapStats(offsets []time.Duration) (mean time.Duration, cv float64) {
	var sum, sumSq float64
	n := float64(len(offsets) - 1)
	for i := 1; i < len(offsets); i++ {
		g := float64(offsets[i] - offsets[i-1])
		sum += g
		sumSq += g * g
	}
	m := sum / n
	return time.Duration(m), math.Sqrt(sumSq/n-m*m) / m
}

func TestPeriodicArrivalsAreEvenlySpaced(t *testing.T) {
	offsets := arrivalOffsets(arrivalsPeriodic, 1000, 10000)
	if offsets[0] != 0 || offsets[1] != time.Millisecond || offsets[9999] != 9999*time.Millisecond {
		t.Fatalf("offsets %v, %v, %v; want 0, 1 ms and 9.999 s", offsets[0], offsets[1], offsets[9999])
	}
	if _, cv := gapStats(offsets); cv > 1e-6 {
		t.Fatalf("periodic gaps vary (coefficient of variation %.3f)", cv)
	}
}

// Poisson arrivals have exponential gaps: their mean is 1/rate and their
// standard deviation equals their mean. The schedule is the same on every
// run, so runs compare.
func TestPoissonArrivalsHaveExponentialGapsAndAFixedSchedule(t *testing.T) {
	offsets := arrivalOffsets(arrivalsPoisson, 1000, 10000)
	if !slices.IsSorted(offsets) || offsets[0] != 0 {
		t.Fatalf("offsets must start at 0 and never go back: %v ...", offsets[:5])
	}
	mean, cv := gapStats(offsets)
	if mean < 950*time.Microsecond || mean > 1050*time.Microsecond {
		t.Errorf("mean gap %v, want 1 ms within 5%%", mean)
	}
	if cv < 0.95 || cv > 1.05 {
		t.Errorf("coefficient of variation %.3f, want about 1 as for exponential gaps", cv)
	}
	if again := arrivalOffsets(arrivalsPoisson, 1000, 10000); !slices.Equal(again, offsets) {
		t.Error("two schedules of the same rate and length differ")
	}
}
