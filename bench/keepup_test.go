package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// trialRecorder is a keepUpTrial over a fixed verdict function that keeps
// every call, so a test can check what the search ran.
type trialRecorder struct {
	keeps func(rate float64, d time.Duration) bool
	calls []trialCall
}

type trialCall struct {
	rate         float64
	d            time.Duration
	confirmation bool
}

func (r *trialRecorder) trial(rate float64, d time.Duration, confirmation bool) (bool, error) {
	r.calls = append(r.calls, trialCall{rate, d, confirmation})
	return r.keeps(rate, d), nil
}

func (r *trialRecorder) count(confirmation bool) int {
	n := 0
	for _, c := range r.calls {
		if c.confirmation == confirmation {
			n++
		}
	}
	return n
}

var testBudget = keepUpBudget{Steps: 6, Confirmations: 2, Step: 20 * time.Second, Confirm: 60 * time.Second}

// Every call's duration must match its kind, and the budget must hold.
func checkBudget(t *testing.T, r *trialRecorder, out keepUpOutcome) {
	t.Helper()
	if s, c := r.count(false), r.count(true); s > testBudget.Steps || c > testBudget.Confirmations ||
		s != out.Steps || c != out.Confirmations {
		t.Fatalf("%d search steps and %d confirmations run, outcome says %d and %d; budget %d and %d",
			s, c, out.Steps, out.Confirmations, testBudget.Steps, testBudget.Confirmations)
	}
	for _, c := range r.calls {
		if want := map[bool]time.Duration{false: testBudget.Step, true: testBudget.Confirm}[c.confirmation]; c.d != want {
			t.Fatalf("call %+v ran for %s, want %s", c, c.d, want)
		}
	}
}

func TestSearchKeepUpConvergesBelowTheThreshold(t *testing.T) {
	const low, high = 100.0, 3000.0
	// Lowest then highest, then 4 halvings of the bracket.
	width := (high - low) / 16
	for _, threshold := range []float64{150, 777, 1500, 2222, 2950} {
		r := &trialRecorder{keeps: func(rate float64, _ time.Duration) bool { return rate <= threshold }}
		out, err := searchKeepUp(keepUpBounds{Low: low, High: high}, testBudget, r.trial)
		if err != nil {
			t.Fatal(err)
		}
		checkBudget(t, r, out)
		if out.Rate > threshold || out.Rate < threshold-width-1 {
			t.Errorf("threshold %v: rate %v, want within %v below it", threshold, out.Rate, width)
		}
		if out.Candidate != out.Rate || r.count(true) != 1 {
			t.Errorf("threshold %v: candidate %v confirmed as %v after %d confirmations, want itself after 1",
				threshold, out.Candidate, out.Rate, r.count(true))
		}
		if out.LowestFailing <= threshold || out.LowestFailing > out.Rate+width+1 {
			t.Errorf("threshold %v: lowest failing %v, want above it and within %v of the rate %v", threshold,
				out.LowestFailing, width, out.Rate)
		}
	}
}

func TestSearchKeepUpWhenEvenTheLowestRateFails(t *testing.T) {
	r := &trialRecorder{keeps: func(float64, time.Duration) bool { return false }}
	out, err := searchKeepUp(keepUpBounds{Low: 100, High: 3000}, testBudget, r.trial)
	if err != nil {
		t.Fatal(err)
	}
	checkBudget(t, r, out)
	if len(r.calls) != 1 || r.calls[0].rate != 100 {
		t.Fatalf("runs %+v, want one search step at 100/s", r.calls)
	}
	if out.Rate != 0 || out.Candidate != 0 || out.LowestFailing != 100 {
		t.Errorf("outcome %+v, want no rate, no candidate, lowest failing 100", out)
	}
}

func TestSearchKeepUpWhenTheHighestRateKeepsUp(t *testing.T) {
	r := &trialRecorder{keeps: func(float64, time.Duration) bool { return true }}
	out, err := searchKeepUp(keepUpBounds{Low: 100, High: 3000}, testBudget, r.trial)
	if err != nil {
		t.Fatal(err)
	}
	checkBudget(t, r, out)
	if out.Rate != 3000 || out.LowestFailing != 0 || len(r.calls) != 3 {
		t.Errorf("outcome %+v after runs %+v, want 3000/s confirmed after 100, 3000 and the confirmation", out, r.calls)
	}
}

// Longer runs are harder: what keeps up for 20 s may not for 60 s, and the
// search steps down until a confirmation holds, or its budget ends.
func TestSearchKeepUpStepsDownWhenTheConfirmationFails(t *testing.T) {
	keeps := func(short, long float64) func(float64, time.Duration) bool {
		return func(rate float64, d time.Duration) bool {
			if d >= testBudget.Confirm {
				return rate <= long
			}
			return rate <= short
		}
	}
	r := &trialRecorder{keeps: keeps(2000, 1850)}
	out, err := searchKeepUp(keepUpBounds{Low: 100, High: 3000}, testBudget, r.trial)
	if err != nil {
		t.Fatal(err)
	}
	checkBudget(t, r, out)
	if r.count(true) != 2 || out.Rate != r.calls[len(r.calls)-1].rate || out.Rate > 1850 || out.Rate < 0.9*out.Candidate-1 {
		t.Errorf("outcome %+v after runs %+v, want the candidate failing for 60 s and 10%% below it confirmed", out, r.calls)
	}
	if out.LowestFailing != out.Candidate {
		t.Errorf("lowest failing %v, want the candidate %v whose confirmation failed", out.LowestFailing, out.Candidate)
	}

	// Both confirmations fail: no rate, the lower of them failing.
	r = &trialRecorder{keeps: keeps(2000, 1000)}
	out, err = searchKeepUp(keepUpBounds{Low: 100, High: 3000}, testBudget, r.trial)
	if err != nil {
		t.Fatal(err)
	}
	checkBudget(t, r, out)
	last := r.calls[len(r.calls)-1]
	if out.Rate != 0 || r.count(true) != 2 || !last.confirmation || out.LowestFailing != last.rate {
		t.Errorf("outcome %+v after runs %+v, want no rate after two failed confirmations", out, r.calls)
	}
}

// The delivery phase's run seeds the search: a low bound it confirmed for
// the full duration needs no run of its own, nor a confirmation.
func TestSearchKeepUpFromTheDeliveryPhase(t *testing.T) {
	r := &trialRecorder{keeps: func(rate float64, _ time.Duration) bool { return rate <= 1200 }}
	out, err := searchKeepUp(keepUpBounds{Low: 1200, High: 3000, LowKeptUp: true, LowConfirmed: true}, testBudget, r.trial)
	if err != nil {
		t.Fatal(err)
	}
	checkBudget(t, r, out)
	if out.Rate != 1200 || r.count(true) != 0 {
		t.Errorf("outcome %+v after runs %+v, want 1200/s from the delivery phase without a confirmation", out, r.calls)
	}
	for _, c := range r.calls {
		if c.rate <= 1200 {
			t.Errorf("ran %v/s, at or below the bound the delivery phase gave", c.rate)
		}
	}

	// A high bound the delivery phase failed at is not run again, and counts as failing.
	r = &trialRecorder{keeps: func(rate float64, _ time.Duration) bool { return rate <= 500 }}
	out, err = searchKeepUp(keepUpBounds{Low: 100, High: 1200, HighFailed: true}, testBudget, r.trial)
	if err != nil {
		t.Fatal(err)
	}
	checkBudget(t, r, out)
	for _, c := range r.calls {
		if c.rate >= 1200 {
			t.Errorf("ran %v/s, at or above the failed high bound", c.rate)
		}
	}
	if out.Rate > 500 || out.Rate < 500-1100/16-1 || out.LowestFailing > 500+1100/16+1 {
		t.Errorf("outcome %+v, want a rate within a sixteenth of the bracket below 500", out)
	}
}

// A low bound the delivery phase confirmed stays the answer when every
// confirmation above it fails: a full run on this session's machine kept up
// for 60 s at 2,545/s in its delivery phase, found 3,340/s in 20 s runs,
// failed to confirm 3,340 and 3,006, and reported no rate at all.
func TestSearchKeepUpFallsBackToTheConfirmedDeliveryPhase(t *testing.T) {
	r := &trialRecorder{keeps: func(rate float64, d time.Duration) bool {
		if d == testBudget.Confirm {
			return rate <= 2800 // a longer run keeps up at less
		}
		return rate <= 3340
	}}
	out, err := searchKeepUp(keepUpBounds{Low: 2545, High: 5090, LowKeptUp: true, LowConfirmed: true}, testBudget, r.trial)
	if err != nil {
		t.Fatal(err)
	}
	checkBudget(t, r, out)
	if r.count(true) != testBudget.Confirmations {
		t.Fatalf("runs %+v; want the confirmations above the delivery phase's rate to run and fail", r.calls)
	}
	if out.Rate != 2545 {
		t.Errorf("outcome %+v after runs %+v, want the delivery phase's 2545/s, confirmed for the full duration", out, r.calls)
	}
}

func TestSearchKeepUpStopsAtATrialError(t *testing.T) {
	n := 0
	trial := func(rate float64, _ time.Duration, _ bool) (bool, error) {
		n++
		if n == 3 {
			return false, errKeepUpNoTime
		}
		return rate <= 1000, nil
	}
	out, err := searchKeepUp(keepUpBounds{Low: 100, High: 3000}, testBudget, trial)
	if !errors.Is(err, errKeepUpNoTime) || n != 3 {
		t.Fatalf("error %v after %d runs, want errKeepUpNoTime after 3", err, n)
	}
	if out.Rate != 0 || out.Candidate != 100 || out.LowestFailing != 3000 {
		t.Errorf("outcome %+v, want nothing confirmed, candidate 100, 3000 failing", out)
	}
}

func TestKeptUp(t *testing.T) {
	good := DeliveryResult{Rate: 1000, Accepted: 20000, AcceptedPerSecond: 998, DeliveredRatioSoon: 1}
	if !keptUp(&good) {
		t.Fatalf("%+v did not keep up", good)
	}
	for name, change := range map[string]func(*DeliveryResult){
		"growing backlog":      func(d *DeliveryResult) { d.BacklogGrowing = true },
		"mails late":           func(d *DeliveryResult) { d.DeliveredRatioSoon = 0.99 },
		"intake short of rate": func(d *DeliveryResult) { d.AcceptedPerSecond = 900 },
		"nothing accepted":     func(d *DeliveryResult) { d.Accepted, d.AcceptedPerSecond, d.DeliveredRatioSoon = 0, 1000, 0 },
	} {
		d := good
		change(&d)
		if keptUp(&d) {
			t.Errorf("%s: counted as keeping up", name)
		}
	}
}

func TestKeepUpGoal(t *testing.T) {
	const tps = 4000
	for _, c := range []struct {
		name        string
		k           *KeepUpResult
		tps         float64
		known, pass bool
		value       float64
	}{
		{"not measured", nil, tps, false, false, 0},
		{"no pgbench", &KeepUpResult{Rate: 2500}, 0, false, false, 0},
		{"confirmed above", &KeepUpResult{Rate: 2500}, tps, true, true, 0.625},
		{"confirmed at", &KeepUpResult{Rate: 2000}, tps, true, true, 0.5},
		{"confirmed below", &KeepUpResult{Rate: 1500, LowestFailing: 2600}, tps, true, false, 0.375},
		{"unconfirmed, failing below the goal", &KeepUpResult{Candidate: 1700, LowestFailing: 1800}, tps, true, false, 0},
		{"unconfirmed, failing above the goal", &KeepUpResult{Candidate: 2500, LowestFailing: 2600}, tps, false, false, 0},
		{"nothing failed, nothing confirmed", &KeepUpResult{Candidate: 2500}, tps, false, false, 0},
	} {
		g := keepUpGoal(c.k, c.tps, 64, time.Minute, 0.5)
		if g.Known != c.known || g.Pass != c.pass || g.Value != c.value {
			t.Errorf("%s: goal %+v, want known %v pass %v value %v", c.name, g, c.known, c.pass, c.value)
		}
		if !strings.Contains(g.Name, "c=64") || !strings.Contains(g.Name, "1m0s") {
			t.Errorf("%s: name %q says neither the pgbench concurrency nor the duration", c.name, g.Name)
		}
	}
}

// judge divides by pgbench at formd's peak, as the intake ratio does, and
// adds the goal only when -keep-up ran.
func TestJudgeKeepUp(t *testing.T) {
	rep := func() *Report {
		return &Report{ClosedLoop: ClosedReport{MaxAcceptedPerSecond: 3000, AtConcurrency: 32},
			Pgbench: []PgbenchRun{{RequestedConcurrency: 32, TPS: 5000}, {RequestedConcurrency: 64, TPS: 2000}},
			KeepUp:  &KeepUpResult{Rate: 2000}}
	}
	find := func(r *Report) *Goal {
		for i, g := range r.Goals {
			if strings.HasPrefix(g.Name, "highest rate that keeps up") {
				return &r.Goals[i]
			}
		}
		return nil
	}
	opts := Options{PgbenchRef: 64, GoalKeepUp: 0.5, KeepUpConfirm: time.Minute}
	r := rep()
	judge(opts, r)
	if g := find(r); g != nil {
		t.Fatalf("keep-up goal %+v without -keep-up", g)
	}
	opts.KeepUp = true
	r = rep()
	judge(opts, r)
	g := find(r)
	if g == nil || !g.Known || g.Value != 0.4 || g.Pass || !strings.Contains(g.Name, "c=32") {
		t.Fatalf("goal %+v, want 2000 ÷ 5000 (pgbench at the peak c=32) = 0.4, failing", g)
	}
	r = rep()
	r.KeepUp = nil
	judge(opts, r)
	if g := find(r); g == nil || g.Known {
		t.Fatalf("goal %+v with -keep-up but no search, want one not known", g)
	}
}
