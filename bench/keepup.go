package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// The -keep-up search: the highest open-loop rate at which deliveries keep
// up, found by bisection over runs of the delivery measurement (runDelivery),
// each on a fresh database with a fresh formd.
const (
	// keepUpWait is how soon after the load a run that keeps up has
	// delivered its mails: a backlog that drains in it is in-flight work, not
	// one that grew.
	keepUpWait = 10 * time.Second
	// keepUpDelivered is the delivered ÷ accepted within keepUpWait that
	// counts as all of them (a handful of stragglers may be retries).
	keepUpDelivered = 0.999
	// keepUpIntakePace is the share of the rate that must have been
	// accepted: past what formd accepts, the open loop's requests queue or
	// fail, intake slows, and a backlog that does not grow says nothing.
	keepUpIntakePace = 0.95
	// keepUpFloor is the search's low bound when the delivery phase gave none.
	keepUpFloor = 100.0
	// keepUpMaxSteps and keepUpMaxConfirmations bound the search's runs.
	keepUpMaxSteps         = 6
	keepUpMaxConfirmations = 2
	// keepUpResolution ends the bisection once the bracket is within this
	// share of its top: finer is below the runs' own noise.
	keepUpResolution = 0.02
	// keepUpStepDown is the next candidate's share of one whose
	// confirmation failed.
	keepUpStepDown = 0.9
	// keepUpRunOverhead is a run's time besides its load and wait: a fresh
	// database, the API setup on a formd of its own, the measured formd's start.
	keepUpRunOverhead = 15 * time.Second
)

// keptUp is the keep-up verdict on one delivery run: intake accepted the
// rate, the backlog did not grow over the load's second half (the delivery
// phase's criterion, backlogTrend), and the mails arrived within keepUpWait
// of the load's end.
func keptUp(d *DeliveryResult) bool {
	return d.Accepted > 0 && d.AcceptedPerSecond >= keepUpIntakePace*d.Rate && !d.BacklogGrowing &&
		d.DeliveredRatioSoon >= keepUpDelivered
}

// keepUpDeadline is what -keep-up adds to the default -deadline: every
// search step and confirmation the budget allows, with its wait and setup.
func keepUpDeadline(step, confirm time.Duration) time.Duration {
	return keepUpMaxSteps*(step+keepUpWait+keepUpRunOverhead) + keepUpMaxConfirmations*(confirm+keepUpWait+keepUpRunOverhead)
}

// keepUpTrial runs the load at rate for d and says whether deliveries kept
// up; confirmation marks the runs that confirm a result. An error ends the search.
type keepUpTrial func(rate float64, d time.Duration, confirmation bool) (bool, error)

// keepUpBounds is where a search starts.
type keepUpBounds struct {
	Low, High float64
	// LowKeptUp says a run at Low kept up already (the delivery phase);
	// LowConfirmed that it ran for at least the confirmation duration.
	LowKeptUp, LowConfirmed bool
	// HighFailed says a run at High did not keep up already.
	HighFailed bool
}

// keepUpBudget bounds a search: at most Steps runs of Step to bisect and
// Confirmations runs of Confirm to confirm.
type keepUpBudget struct {
	Steps, Confirmations int
	Step, Confirm        time.Duration
}

// keepUpOutcome is what a search found.
type keepUpOutcome struct {
	// Rate is the highest rate that kept up for the confirmation duration
	// (0: none was confirmed).
	Rate float64
	// Candidate is the bisection's result: the highest rate that kept up in
	// a search step or the delivery phase (0: none).
	Candidate float64
	// LowestFailing is the lowest rate that did not keep up in any run (0:
	// none failed); the sustainable rate lies below it.
	LowestFailing float64
	// Steps and Confirmations count the runs made.
	Steps, Confirmations int
}

// searchKeepUp bisects between a low rate that keeps up and a high one that
// does not, testing either first unless b says how it went, then confirms
// the highest rate that kept up with a longer run, stepping down by
// keepUpStepDown when the confirmation fails; when the confirmations run
// out, a low bound the delivery phase confirmed is the answer. It assumes a
// rate that keeps up means every lower one does. The outcome so far comes
// with an error.
func searchKeepUp(b keepUpBounds, budget keepUpBudget, trial keepUpTrial) (keepUpOutcome, error) {
	var out keepUpOutcome
	failed := func(rate float64) {
		if out.LowestFailing == 0 || rate < out.LowestFailing {
			out.LowestFailing = rate
		}
	}
	if b.HighFailed {
		failed(b.High)
	}
	step := func(rate float64) (bool, error) {
		out.Steps++
		ok, err := trial(rate, budget.Step, false)
		if err == nil && !ok {
			failed(rate)
		}
		return ok, err
	}

	lo, hi := b.Low, b.High
	if !b.LowKeptUp {
		if budget.Steps < 1 {
			return out, nil
		}
		if ok, err := step(lo); err != nil || !ok {
			return out, err // even the lowest rate did not keep up
		}
	}
	out.Candidate = lo
	if !b.HighFailed && hi > lo && out.Steps < budget.Steps {
		ok, err := step(hi)
		if err != nil {
			return out, err
		}
		if ok {
			lo = hi
			out.Candidate = lo
		}
	}
	// An untested High counts as failing: it is the most formd accepted.
	for out.Steps < budget.Steps && hi-lo > keepUpResolution*hi {
		mid := math.Round((lo + hi) / 2)
		if mid <= lo || mid >= hi {
			break
		}
		ok, err := step(mid)
		if err != nil {
			return out, err
		}
		if ok {
			lo = mid
			out.Candidate = lo
		} else {
			hi = mid
		}
	}

	// Confirm above a low bound the delivery phase confirmed; at or below
	// it, or once the confirmations run out, that bound is the answer.
	for rate := lo; !(b.LowConfirmed && rate <= b.Low) && out.Confirmations < budget.Confirmations && rate >= 1; {
		out.Confirmations++
		ok, err := trial(rate, budget.Confirm, true)
		if err != nil {
			return out, err
		}
		if ok {
			out.Rate = rate
			return out, nil
		}
		failed(rate)
		rate = math.Round(rate * keepUpStepDown)
	}
	if b.LowConfirmed {
		out.Rate = b.Low
	}
	return out, nil
}

// KeepUpResult is the -keep-up search for the highest open-loop rate at
// which deliveries keep up (keptUp).
type KeepUpResult struct {
	Low        float64 `json:"low"`
	LowSource  string  `json:"lowSource"`
	High       float64 `json:"high"`
	HighSource string  `json:"highSource"`
	// StepSeconds and ConfirmSeconds are the search's and the confirmations'
	// load durations; WaitSeconds bounds the wait for the mails after each.
	StepSeconds    float64 `json:"stepSeconds"`
	ConfirmSeconds float64 `json:"confirmSeconds"`
	WaitSeconds    float64 `json:"waitSeconds"`
	// Steps are the runs in order, the delivery phase first when there was one.
	Steps []KeepUpStep `json:"steps"`
	// Rate is the highest rate that kept up for ConfirmSeconds (0: none was
	// confirmed); Candidate the highest that kept up in a search step.
	Rate          float64 `json:"rate"`
	Candidate     float64 `json:"candidate"`
	LowestFailing float64 `json:"lowestFailingRate"`
	// Stopped says why the search ended before its budget did.
	Stopped string `json:"stopped,omitempty"`
}

// KeepUpStep is one run of the search.
type KeepUpStep struct {
	// Kind is "delivery phase", "search" or "confirmation".
	Kind               string  `json:"kind"`
	Rate               float64 `json:"rate"`
	Seconds            float64 `json:"seconds"`
	AcceptedPerSecond  float64 `json:"acceptedPerSecond"`
	DeliveredPerSecond float64 `json:"deliveredPerSecond"`
	IntakeErrors       int     `json:"intakeErrors"`
	// Backlog is the submissions awaiting delivery as the load started and
	// ended (-1: unknown), and its slope over the load's second half.
	BacklogAtStart int     `json:"backlogAtStart"`
	BacklogAtEnd   int     `json:"backlogAtEnd"`
	BacklogSlope   float64 `json:"backlogSlopePerSecond"`
	BacklogGrowing bool    `json:"backlogGrowing"`
	// DeliveredRatio counts the mails that arrived within keepUpWait of the load's end.
	DeliveredRatio float64 `json:"deliveredRatioWithinWait"`
	KeptUp         bool    `json:"keptUp"`
	// FormdPeakRSSMiB is the run's formd's VmHWM (0: unknown). It stays out
	// of the report's memory goal: the search overloads formd on purpose.
	FormdPeakRSSMiB float64 `json:"formdPeakRssMiB"`
}

func keepUpStepOf(kind string, d *DeliveryResult) KeepUpStep {
	s := KeepUpStep{Kind: kind, Rate: d.Rate, Seconds: d.Seconds, AcceptedPerSecond: d.AcceptedPerSecond,
		DeliveredPerSecond: d.DeliveredPerSecond, BacklogAtStart: d.BacklogAtLoadStart, BacklogAtEnd: d.BacklogAtLoadEnd,
		BacklogSlope: d.BacklogSlope, BacklogGrowing: d.BacklogGrowing, DeliveredRatio: d.DeliveredRatioSoon, KeptUp: d.KeptUp}
	if d.Intake != nil {
		s.IntakeErrors = d.Intake.Errors()
	}
	if d.Memory != nil {
		s.FormdPeakRSSMiB = d.Memory.PeakMiB
	}
	return s
}

// errKeepUpNoTime ends a search whose next run would not fit in -deadline.
var errKeepUpNoTime = errors.New("the -deadline leaves no time for the next run")

// measureKeepUp runs the -keep-up search after the other delivery runs and
// adds it to the report; a failed run ends the search with a warning, since
// the other figures stand. pgbenchRuns is how many pgbench runs follow it.
func measureKeepUp(ctx context.Context, bin, tmp string, env []string, opts Options, rep *Report, pgbenchRuns int) error {
	high := math.Round(rep.ClosedLoop.MaxAcceptedPerSecond)
	switch {
	case strings.Contains(opts.FormdEnv, "FORMD_DELIVERY_WORKERS=0"):
		rep.Warnings = append(rep.Warnings, "-formd-env turns delivery workers off: no keep-up search")
		return nil
	case high < 1:
		rep.Warnings = append(rep.Warnings, "the closed loop accepted nothing: no keep-up search")
		return nil
	}
	k := &KeepUpResult{Low: keepUpFloor, LowSource: "the search's floor", High: high, HighSource: "the closed loop's maximum accepted/s",
		StepSeconds: opts.KeepUpStep.Seconds(), ConfirmSeconds: opts.KeepUpConfirm.Seconds(), WaitSeconds: keepUpWait.Seconds(),
		Steps: []KeepUpStep{}}
	b := keepUpBounds{Low: k.Low, High: k.High}
	// The delivery phase is a run like the search's, on the same criterion:
	// it gives a bound for free, and confirms its rate if it ran long enough.
	if d := rep.Delivery; d != nil {
		k.Steps = append(k.Steps, keepUpStepOf("delivery phase", d))
		switch {
		case d.KeptUp && d.Rate >= b.Low:
			b.Low, b.LowKeptUp, b.LowConfirmed = d.Rate, true, opts.Delivery >= opts.KeepUpConfirm
			k.Low, k.LowSource = d.Rate, "the delivery phase, which kept up"
		case !d.KeptUp && d.Rate <= b.High:
			b.High, b.HighFailed = d.Rate, true
			k.High, k.HighSource = d.Rate, "the delivery phase, which did not keep up"
		}
	}
	if b.Low >= b.High && !b.LowKeptUp {
		b.Low = math.Round(b.High / 2)
		k.Low, k.LowSource = b.Low, "half the high bound"
	}
	// pgbench runs after the search, at one concurrency or two.
	reserve := time.Duration(pgbenchRuns)*opts.Step + 30*time.Second
	runs := 0
	trial := func(rate float64, d time.Duration, confirmation bool) (bool, error) {
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d+keepUpWait+keepUpRunOverhead+reserve {
			return false, errKeepUpNoTime
		}
		runs++
		kind := "search"
		if confirmation {
			kind = "confirmation"
		}
		label := fmt.Sprintf("keep-up run %d (%s)", runs, kind)
		progress(fmt.Sprintf("%s: fresh database, formd sending to an in-process SMTP server, %.0f/s for %s", label, rate, d))
		r, tail, err := runDelivery(ctx, bin, tmp, env, opts, deliveryRun{Rate: rate, Source: "keep-up " + kind,
			Load: d, Wait: keepUpWait, Label: label, Dir: fmt.Sprintf("keepup-%d", runs)})
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if err != nil {
			if tail != "" {
				err = fmt.Errorf("%w; formd's log (tail): %s", err, tail)
			}
			return false, fmt.Errorf("%s: %w", label, err)
		}
		k.Steps = append(k.Steps, keepUpStepOf(kind, r))
		rep.Warnings = append(rep.Warnings, r.notes...)
		progress(fmt.Sprintf("%s: accepted %.0f/s, backlog growing %v, delivered within %s %.4f: kept up %v",
			label, r.AcceptedPerSecond, r.BacklogGrowing, keepUpWait, r.DeliveredRatioSoon, r.KeptUp))
		return r.KeptUp, nil
	}
	out, err := searchKeepUp(b, keepUpBudget{Steps: keepUpMaxSteps, Confirmations: keepUpMaxConfirmations,
		Step: opts.KeepUpStep, Confirm: opts.KeepUpConfirm}, trial)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	k.Rate, k.Candidate, k.LowestFailing = out.Rate, out.Candidate, out.LowestFailing
	if err != nil {
		k.Stopped = err.Error()
		rep.Warnings = append(rep.Warnings, "keep-up search stopped early: "+err.Error())
	}
	rep.KeepUp = k
	return nil
}

// keepUpGoal judges full service: the highest rate that kept up for the
// confirmation duration ÷ pgbench's tps at formd's peak concurrency conc
// (the figure the intake ratio divides by). With no rate confirmed it is
// still a known failure when a rate that did not keep up is itself below
// the goal's.
func keepUpGoal(k *KeepUpResult, tps float64, conc int, confirm time.Duration, goal float64) Goal {
	g := Goal{Name: fmt.Sprintf("highest rate that keeps up for %s ÷ pgbench tps at formd's peak c=%d", confirm, conc),
		Target: fmt.Sprintf(">= %.2f", goal)}
	if k == nil || tps <= 0 {
		return g
	}
	g.Value = k.Rate / tps
	switch {
	case k.Rate > 0:
		g.Known, g.Pass = true, g.Value >= goal
	case k.LowestFailing > 0 && k.LowestFailing/tps < goal:
		g.Known = true
	}
	return g
}

// keepUpLines is the human-readable form of the search.
func keepUpLines(k *KeepUpResult, o Options) []string {
	lines := []string{
		fmt.Sprintf("keep-up search (each run on a fresh database and formd, mail to an in-process SMTP server; kept up = ≥ %.0f%% of the rate accepted, backlog not growing over the load's second half, ≥ %.1f%% of the mails delivered within %s of the load's end):",
			100*keepUpIntakePace, 100*keepUpDelivered, keepUpWait),
		fmt.Sprintf("  from %s/s (%s) to %s/s (%s); search runs %s, confirmation %s",
			thousands(k.Low), k.LowSource, thousands(k.High), k.HighSource, o.KeepUpStep, o.KeepUpConfirm),
	}
	for _, s := range k.Steps {
		verdict := "did NOT keep up"
		if s.KeptUp {
			verdict = "kept up"
		}
		rss := "unknown"
		if s.FormdPeakRSSMiB > 0 {
			rss = fmt.Sprintf("%.0f MiB", s.FormdPeakRSSMiB)
		}
		lines = append(lines, fmt.Sprintf("  %-14s %7s/s for %3.0f s: accepted %s/s (errors %d), delivered %s/s, backlog %s → %s (%+.1f/s), delivered within %s %.4f, formd peak RSS %s: %s",
			s.Kind, thousands(s.Rate), s.Seconds, thousands(s.AcceptedPerSecond), s.IntakeErrors, thousands(s.DeliveredPerSecond),
			count(s.BacklogAtStart), count(s.BacklogAtEnd), s.BacklogSlope, keepUpWait, s.DeliveredRatio, rss, verdict))
	}
	var result string
	switch {
	case k.Rate > 0:
		result = fmt.Sprintf("  highest rate that kept up for %s: %s/s", o.KeepUpConfirm, thousands(k.Rate))
	case k.Candidate > 0:
		result = fmt.Sprintf("  no rate confirmed for %s; %s/s kept up in a shorter run", o.KeepUpConfirm, thousands(k.Candidate))
	default:
		result = "  no rate kept up"
	}
	if k.LowestFailing > 0 {
		result += fmt.Sprintf("; the lowest that did not: %s/s", thousands(k.LowestFailing))
	}
	if k.Stopped != "" {
		result += "; stopped early: " + k.Stopped
	}
	return append(lines, result)
}
