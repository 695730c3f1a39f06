package main

import (
	"slices"
	"testing"
)

func TestTheSettingStepsAlternateOffFirstInABBAOrder(t *testing.T) {
	want := []bool{false, true, true, false, false, true}
	if got := settingOrder(3); !slices.Equal(got, want) {
		t.Fatalf("3 rounds ran as %v; want %v", got, want)
	}
	if got := settingOrder(0); len(got) != 0 {
		t.Fatalf("no rounds ran as %v", got)
	}
}

func TestTheMedianIsTheMiddleOrTheMeanOfTheTwoMiddleOnes(t *testing.T) {
	xs := []float64{30, 10, 20}
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{xs, 20}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}, {nil, 0}} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median of %v = %v; want %v", c.xs, got, c.want)
		}
	}
	if !slices.Equal(xs, []float64{30, 10, 20}) {
		t.Fatalf("median sorted its argument: %v", xs)
	}
}

func TestTheSettingMediansLeaveOutASettingWithAStepWithoutStatementTime(t *testing.T) {
	step := func(on bool, rate, us float64) settingStep {
		s := settingStep{On: on, Step: &StepResult{AcceptedPerSecond: rate, Counts: Counts{Sent: 10, Accepted: 10}}}
		if us > 0 {
			s.Statements = &StatementReport{Accepted: 10, PerAcceptedUs: us}
		}
		return s
	}
	m := summarizeSteps([]settingStep{step(false, 100, 50), step(true, 80, 0), step(true, 60, 70), step(false, 120, 60)})
	if m.OffRate != 110 || m.OnRate != 70 || m.Ratio != 70.0/110 || !m.Complete {
		t.Fatalf("medians %+v; want off 110, on 70, ratio 70/110, complete", m)
	}
	if m.OffStatementUs != 55 || m.OnStatementUs != 0 {
		t.Fatalf("statement µs off %v, on %v; want 55 and none", m.OffStatementUs, m.OnStatementUs)
	}
	if m := summarizeSteps([]settingStep{step(false, 100, 0), {On: true}}); m.Complete {
		t.Fatal("a step that did not run left the phase complete")
	}
	if m := summarizeSteps(nil); m.Complete || m.Ratio != 0 {
		t.Fatalf("no steps: %+v", m)
	}
}
