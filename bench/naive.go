package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// NaivePeerResult is the naive peer's closed loop (bench/naivepeer: Go, Gin
// and one autocommit INSERT per request) and, concurrency by concurrency,
// formd's intake beside it.
type NaivePeerResult struct {
	Steps []*StepResult `json:"steps"`
	// Comparison pairs each concurrency's naive rate with formd's.
	Comparison []NaiveComparison `json:"comparison"`
	// MinRatio is the lowest formd (delivery workers off) ÷ naive over the
	// concurrencies where both were measured; Compared says how many those were.
	MinRatio float64 `json:"minRatio"`
	Compared int     `json:"compared"`
}

// NaiveComparison is one concurrency of the comparison: accepted/s each.
type NaiveComparison struct {
	Concurrency int     `json:"concurrency"`
	Naive       float64 `json:"naive"`
	// FormdWorkersOff is formd's intake without delivery workers, the goal's
	// measure (0: not measured); FormdWorkersOn is the closed loop's, for reference.
	FormdWorkersOff float64 `json:"formdWorkersOff"`
	FormdWorkersOn  float64 `json:"formdWorkersOn"`
	// Ratio is FormdWorkersOff ÷ Naive (0 when either is missing).
	Ratio float64 `json:"ratio"`
}

// runNaivePeer builds the naive peer, starts it on dbURL (its own table
// beside formd's) with formd stopped, and runs the closed loop's steps
// against it with the same client, body and warm-up as formd's.
func runNaivePeer(ctx context.Context, dir, dbURL, key string, opts Options) (*NaivePeerResult, error) {
	bin, err := buildNaivePeer(ctx, dir)
	if err != nil {
		return nil, err
	}
	peer, err := startPeer(ctx, bin, "naive peer", "-database", dbURL)
	if err != nil {
		return nil, err
	}
	defer peer.Stop()
	load := newLoader(peer.URL, key, maxOf(opts.Concurrency), opts.ClientIPs)
	defer load.client.CloseIdleConnections()
	if err := load.probe(ctx); err != nil {
		return nil, fmt.Errorf("naive peer POST /submit: %w\n%s", err, peer.StderrTail())
	}
	if opts.WarmupRequests > 0 {
		load.closedStep(ctx, 8, 10*time.Second, opts.WarmupRequests)
	}
	steps, err := load.closedSteps(ctx, peer.PID(), opts, "naive peer")
	if err != nil {
		return nil, err
	}
	return &NaivePeerResult{Steps: steps}, nil
}

// compare fills the comparison with formd's rates at each concurrency:
// workersOff are formd's steps without delivery workers, workersOn the
// closed loop's.
func (r *NaivePeerResult) compare(workersOff, workersOn []*StepResult) {
	rate := func(steps []*StepResult, c int) float64 {
		for _, s := range steps {
			if s.Concurrency == c {
				return s.AcceptedPerSecond
			}
		}
		return 0
	}
	r.Comparison, r.MinRatio, r.Compared = nil, 0, 0
	for _, s := range r.Steps {
		cmp := NaiveComparison{Concurrency: s.Concurrency, Naive: s.AcceptedPerSecond,
			FormdWorkersOff: rate(workersOff, s.Concurrency), FormdWorkersOn: rate(workersOn, s.Concurrency)}
		if cmp.Naive > 0 && cmp.FormdWorkersOff > 0 {
			cmp.Ratio = cmp.FormdWorkersOff / cmp.Naive
			if r.Compared == 0 || cmp.Ratio < r.MinRatio {
				r.MinRatio = cmp.Ratio
			}
			r.Compared++
		}
		r.Comparison = append(r.Comparison, cmp)
	}
}

// naivePeerGoal: formd's intake above the naive peer's at every concurrency.
func naivePeerGoal(r *NaivePeerResult, concurrencies int) Goal {
	g := Goal{Name: "intake (delivery off) ÷ naive peer, lowest of the closed-loop steps", Target: "> 1.00"}
	if r == nil {
		return g
	}
	g.Value, g.Known = r.MinRatio, r.Compared == concurrencies && concurrencies > 0
	g.Pass = g.Known && r.MinRatio > 1
	return g
}

// intakeWithoutDelivery are formd's closed-loop steps without delivery
// workers: the intake baseline's, or the closed loop's own when -formd-env
// already turned the workers off (nil when there are none).
func intakeWithoutDelivery(opts Options, rep *Report) []*StepResult {
	if strings.Contains(opts.FormdEnv, "FORMD_DELIVERY_WORKERS=0") {
		return rep.ClosedLoop.Steps
	}
	if rep.IntakeBaseline != nil {
		return rep.IntakeBaseline.Steps
	}
	return nil
}

// printNaivePeer prints the comparison, a line per concurrency.
func printNaivePeer(p func(string, ...any), r *NaivePeerResult) {
	if r == nil {
		return
	}
	p("naive peer (Go, Gin, one autocommit INSERT per request, no mail) beside formd's intake, accepted/s:")
	for i, c := range r.Comparison {
		ratio := "n/a"
		if c.Ratio > 0 {
			ratio = fmt.Sprintf("%.2f", c.Ratio)
		}
		var cpu *CPUUse
		if i < len(r.Steps) {
			cpu = r.Steps[i].CPU
		}
		p("  c=%-4d naive %8s  formd delivery off %8s (÷ naive %s)  delivery on %8s  naive's %s",
			c.Concurrency, thousands(c.Naive), thousands(c.FormdWorkersOff), ratio, thousands(c.FormdWorkersOn), cpu.of("peer"))
	}
}
