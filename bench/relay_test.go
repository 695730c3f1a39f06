package main

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// relaySteps are steps of the relay phase at those concurrencies and accepted/s.
func relaySteps(rates map[int]float64) []*RelayStep {
	var steps []*RelayStep
	for _, c := range []int{1, 8, 32, 64, 128} {
		if r, ok := rates[c]; ok {
			steps = append(steps, &RelayStep{Step: &StepResult{Concurrency: c, AcceptedPerSecond: r}, Drained: true, ServerCPUPerMailUs: 100})
		}
	}
	return steps
}

func TestTheRelayRatioIsTheLowestAtEverydayLoad(t *testing.T) {
	r := &RelayResult{
		Formd: relaySteps(map[int]float64{1: 1200, 8: 4000, 32: 5000, 64: 1000}),
		Relay: relaySteps(map[int]float64{1: 1000, 8: 5000, 32: 4000, 64: 4000}),
	}
	r.compare()
	if r.Compared != 3 || r.MinRatio != 0.8 {
		t.Fatalf("compared %d, lowest %v; want 3 and 0.8 (at c=8; c=64 is not judged)", r.Compared, r.MinRatio)
	}
	if len(r.Comparison) != 4 || r.Comparison[3].Ratio != 0.25 {
		t.Fatalf("comparison %+v; want every concurrency, c=64 at 0.25", r.Comparison)
	}
	g := relayGoals(r, 120)
	if !g[0].Known || g[0].Pass || g[0].Value != 0.8 {
		t.Fatalf("ratio goal %+v; want known, failed, 0.8", g[0])
	}
	if !g[1].Known || !g[1].Pass || g[1].Value != 100 {
		t.Fatalf("CPU goal %+v; want known, passed, 100", g[1])
	}
}

func TestRelayGoalsAreUnknownUnlessMeasured(t *testing.T) {
	for name, r := range map[string]*RelayResult{
		"no phase":        nil,
		"no c=32":         {Formd: relaySteps(map[int]float64{1: 2, 8: 2}), Relay: relaySteps(map[int]float64{1: 1, 8: 1})},
		"relay at 0 at 1": {Formd: relaySteps(map[int]float64{1: 2, 8: 2, 32: 2}), Relay: relaySteps(map[int]float64{1: 0, 8: 1, 32: 1})},
	} {
		if r != nil {
			r.compare()
		}
		if g := relayGoals(r, 120); g[0].Known || g[0].Pass {
			t.Errorf("%s: ratio goal %+v; want unknown", name, g[0])
		}
	}
	r := &RelayResult{Formd: relaySteps(map[int]float64{1: 2, 8: 2, 32: 2})}
	r.Formd[1].Drained = false
	if g := relayGoals(r, 120); g[1].Known {
		t.Errorf("CPU goal with mails missing: %+v; want unknown", g[1])
	}
	r.Formd[1].Drained, r.Formd[1].ServerCPUPerMailUs = true, 0
	if g := relayGoals(r, 120); g[1].Known {
		t.Errorf("CPU goal without a CPU reading: %+v; want unknown", g[1])
	}
	r.Formd[1].ServerCPUPerMailUs = 121
	if g := relayGoals(r, 120); !g[1].Known || g[1].Pass {
		t.Errorf("CPU goal at 121 µs: %+v; want known and failed", g[1])
	}
}

func TestWaitMailsStopsWhenTheMailsAreInOrTheLimitPasses(t *testing.T) {
	var n atomic.Int64
	go func() {
		for range 5 {
			time.Sleep(2 * time.Millisecond)
			n.Add(1)
		}
	}()
	count := func() int { return int(n.Load()) }
	if _, ok := waitMails(context.Background(), count, 5, 5*time.Second); !ok {
		t.Fatal("the five mails came, but the wait says not")
	}
	if d, ok := waitMails(context.Background(), count, 6, 30*time.Millisecond); ok || d < 30*time.Millisecond {
		t.Fatalf("a missing mail: waited %s, ok %v; want the limit and false", d, ok)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := waitMails(ctx, count, 6, time.Minute); ok {
		t.Fatal("a cancelled wait says every mail came")
	}
}

func TestRelayArithmetic(t *testing.T) {
	if got := perMailUs(3*time.Millisecond, 10); got != 300 {
		t.Errorf("3 ms over 10 mails: %v µs; want 300", got)
	}
	if got := perMailUs(time.Second, 0); got != 0 {
		t.Errorf("no mails: %v; want 0", got)
	}
	for step, want := range map[time.Duration]int{500 * time.Millisecond: 1, 4 * time.Second: 4, 5900 * time.Millisecond: 5} {
		if got := profileSeconds(step); got != want {
			t.Errorf("profile of a %s step: %d s; want %d", step, got, want)
		}
	}
	if got, want := relayDeadline(5*time.Second, 5), 5*(10*time.Second+relayStepAllowance)+relayPhaseAllowance; got != want {
		t.Errorf("deadline %s; want %s", got, want)
	}
}

func TestAProfilerOnlyProfilesItsSteps(t *testing.T) {
	var p *profiler
	p.start(context.Background(), 1)() // nil: nothing, no panic
	p = newProfiler("http://127.0.0.1:1", t.TempDir(), time.Second)
	p.start(context.Background(), 32)()
	if len(p.files) != 0 || len(p.notes) != 0 {
		t.Fatalf("a step at c=32 was profiled: %v %v", p.files, p.notes)
	}
	p.start(context.Background(), 8)()
	if len(p.files) != 0 || len(p.notes) != 2 {
		t.Fatalf("with no debug server: files %v, notes %v; want two notes", p.files, p.notes)
	}
}
