package main

import (
	"fmt"
	"strings"
	"testing"
)

func steps(rates map[int]float64, order ...int) []*StepResult {
	var out []*StepResult
	for _, c := range order {
		out = append(out, &StepResult{Concurrency: c, AcceptedPerSecond: rates[c]})
	}
	return out
}

func TestTheNaivePeerGoalNeedsFormdAheadAtEveryConcurrency(t *testing.T) {
	naive := &NaivePeerResult{Steps: steps(map[int]float64{1: 500, 8: 2000, 128: 4000}, 1, 8, 128)}
	off := steps(map[int]float64{1: 600, 8: 1800, 128: 9000}, 1, 8, 128)
	on := steps(map[int]float64{1: 550, 8: 1500, 128: 5000}, 1, 8, 128)
	naive.compare(off, on)
	if naive.Compared != 3 || naive.MinRatio != 0.9 {
		t.Fatalf("compared %d, lowest ratio %v; want 3 and 0.9 (c=8)", naive.Compared, naive.MinRatio)
	}
	if c := naive.Comparison[2]; c.Concurrency != 128 || c.FormdWorkersOff != 9000 || c.FormdWorkersOn != 5000 || c.Ratio != 2.25 {
		t.Fatalf("c=128 compared as %+v", c)
	}
	if g := naivePeerGoal(naive, 3); !g.Known || g.Pass || g.Value != 0.9 {
		t.Fatalf("behind at c=8 must fail: %+v", g)
	}

	off[1].AcceptedPerSecond = 2100
	naive.compare(off, on)
	if g := naivePeerGoal(naive, 3); !g.Known || !g.Pass || g.Value != 1.05 {
		t.Fatalf("ahead everywhere must pass: %+v", g)
	}
	// A concurrency formd was not measured at leaves the goal unknown, not passed.
	naive.compare(off[:2], on)
	if g := naivePeerGoal(naive, 3); g.Known || g.Pass {
		t.Fatalf("c=128 unmeasured must leave the goal unknown: %+v", g)
	}
	if g := naivePeerGoal(nil, 3); g.Known || g.Pass {
		t.Fatalf("no naive run must leave the goal unknown: %+v", g)
	}
}

func TestFormdWithoutDeliveryIsTheClosedLoopWhenItsWorkersAreOff(t *testing.T) {
	closed := steps(map[int]float64{8: 1}, 8)
	baseline := steps(map[int]float64{8: 2}, 8)
	rep := &Report{ClosedLoop: ClosedReport{Steps: closed}, IntakeBaseline: &IntakeBaseline{Steps: baseline}}
	if got := intakeWithoutDelivery(Options{}, rep); len(got) != 1 || got[0] != baseline[0] {
		t.Fatalf("with workers on, the intake baseline's steps: %v", got)
	}
	if got := intakeWithoutDelivery(Options{FormdEnv: "FORMD_DELIVERY_WORKERS=0"}, rep); len(got) != 1 || got[0] != closed[0] {
		t.Fatalf("with workers off, the closed loop's steps: %v", got)
	}
}

func TestTheNaivePeersLinesNameItsCPUAsThePeers(t *testing.T) {
	naive := &NaivePeerResult{Steps: steps(map[int]float64{8: 2000}, 8)}
	naive.Steps[0].CPU = &CPUUse{FormdCores: 0.5, BenchCores: 0.25, MachineCores: 1}
	naive.compare(steps(map[int]float64{8: 1000}, 8), nil)
	var out strings.Builder
	printNaivePeer(func(format string, a ...any) { fmt.Fprintf(&out, format+"\n", a...) }, naive)
	want := "c=8    naive    2,000  formd delivery off    1,000 (÷ naive 0.50)  delivery on        0  naive's cpu peer 0.50, load generator 0.25, machine 1.00 cores"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("printed:\n%s\nwant a line with:\n%s", out.String(), want)
	}
}
