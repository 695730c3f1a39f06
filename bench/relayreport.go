package main

import (
	"fmt"
	"slices"
	"strings"
)

// RelayResult is the relay phase ("everyday load"): formd and the relay
// peer (bench/relaypeer, a Go relay that mails each submission within the
// request and stores nothing) in the same closed-loop steps, each mailing
// every accepted submission to one in-process SMTP server.
type RelayResult struct {
	StepSeconds float64 `json:"stepSeconds"`
	// Formd and Relay are each server's steps, in -concurrency's order.
	Formd []*RelayStep `json:"formd"`
	Relay []*RelayStep `json:"relay"`
	// Comparison pairs each concurrency's accepted/s.
	Comparison []RelayComparison `json:"comparison"`
	// MinRatio is the lowest formd ÷ relay at the goal's concurrencies
	// (relayGoalConcurrencies); Compared says at how many of them both were measured.
	MinRatio float64 `json:"minRatio"`
	Compared int     `json:"compared"`
	// Profiles are formd's profiles written with -profile.
	Profiles []string `json:"profiles,omitempty"`
	// Memory goes to the report's list of all phases; notes to its warnings.
	Memory *MemoryUse `json:"-"`
	notes  []string
}

// RelayStep is one closed-loop step of the relay phase and the mails it caused.
type RelayStep struct {
	Step *StepResult `json:"step"`
	// Mails are the server's mails that reached the sink from the step's
	// start until the last of the step's mails was in.
	Mails int `json:"mails"`
	// DrainSeconds is how long that took after the step ended (formd
	// delivers after its 200; the relay's mail is in before it); Drained
	// says every mail came within relayDrainLimit.
	DrainSeconds float64 `json:"drainSeconds"`
	Drained      bool    `json:"drained"`
	// DeliveredPerSecond is Mails over the step and the drain.
	DeliveredPerSecond float64 `json:"deliveredPerSecond"`
	// ServerCPUPerMailUs is the server process's CPU over the step and the
	// drain ÷ Mails, in µs: formd's CPU per delivered submission, intake and
	// delivery together, or the relay's per mail (0: unknown).
	// BenchCPUPerMailUs is the bench process's (load generator and SMTP
	// sink), for reference.
	ServerCPUPerMailUs float64 `json:"serverCpuMicrosPerMail"`
	BenchCPUPerMailUs  float64 `json:"benchCpuMicrosPerMail"`
}

// RelayComparison is one concurrency of the comparison, accepted/s each.
type RelayComparison struct {
	Concurrency int     `json:"concurrency"`
	Formd       float64 `json:"formd"`
	Relay       float64 `json:"relay"`
	// Ratio is Formd ÷ Relay (0 when either is missing).
	Ratio float64 `json:"ratio"`
}

// relayGoalConcurrencies are the clients the ratio goal is judged at:
// everyday load, where a relay's design is at its best.
var relayGoalConcurrencies = []int{1, 8, 32}

// relayCPUGoalConcurrency is the step whose formd CPU per delivered
// submission the CPU goal judges.
const relayCPUGoalConcurrency = 8

// relayStepAt is the step at concurrency c, or nil.
func relayStepAt(steps []*RelayStep, c int) *RelayStep {
	for _, s := range steps {
		if s.Step != nil && s.Step.Concurrency == c {
			return s
		}
	}
	return nil
}

// compare fills the comparison and the lowest ratio at the goal's concurrencies.
func (r *RelayResult) compare() {
	r.Comparison, r.MinRatio, r.Compared = nil, 0, 0
	for _, f := range r.Formd {
		if f.Step == nil {
			continue
		}
		cmp := RelayComparison{Concurrency: f.Step.Concurrency, Formd: f.Step.AcceptedPerSecond}
		if s := relayStepAt(r.Relay, cmp.Concurrency); s != nil {
			cmp.Relay = s.Step.AcceptedPerSecond
		}
		cmp.Ratio = ratio(cmp.Formd, cmp.Relay)
		if cmp.Formd > 0 && cmp.Relay > 0 && slices.Contains(relayGoalConcurrencies, cmp.Concurrency) {
			if r.Compared == 0 || cmp.Ratio < r.MinRatio {
				r.MinRatio = cmp.Ratio
			}
			r.Compared++
		}
		r.Comparison = append(r.Comparison, cmp)
	}
}

// relayGoals judges the relay phase: formd accepts at least as many per
// second as the relay at everyday load, and spends at most cpuGoalUs of
// CPU per delivered submission at 8 clients. Each is known only when
// measured, the CPU only when every mail of the step came.
func relayGoals(r *RelayResult, cpuGoalUs float64) []Goal {
	ratioGoal := Goal{Name: "everyday load: formd ÷ relay at 1, 8 and 32 clients (lowest)", Target: ">= 1.00"}
	cpu := Goal{Name: fmt.Sprintf("formd CPU per delivered submission at %d clients, µs", relayCPUGoalConcurrency),
		Target: fmt.Sprintf("<= %.0f", cpuGoalUs)}
	if r != nil {
		ratioGoal.Value, ratioGoal.Known = r.MinRatio, r.Compared == len(relayGoalConcurrencies)
		ratioGoal.Pass = ratioGoal.Known && r.MinRatio >= 1
		if s := relayStepAt(r.Formd, relayCPUGoalConcurrency); s != nil && s.Drained && s.ServerCPUPerMailUs > 0 {
			cpu.Value, cpu.Known = s.ServerCPUPerMailUs, true
			cpu.Pass = cpu.Value <= cpuGoalUs
		}
	}
	return []Goal{ratioGoal, cpu}
}

// relayLines is the human-readable form of the relay phase.
func relayLines(r *RelayResult, o Options) []string {
	lines := []string{fmt.Sprintf("everyday load (fresh database, %s steps): formd (stores, mails after its 200) beside the relay peer (Go, mails within the request over reused SMTP connections, stores nothing), both to one SMTP server:", o.Step)}
	us := func(x float64) string {
		if x <= 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.0f µs", x)
	}
	for _, c := range r.Comparison {
		f, rl := relayStepAt(r.Formd, c.Concurrency), relayStepAt(r.Relay, c.Concurrency)
		rCPU, rLat := "n/a", "n/a"
		if rl != nil {
			rCPU, rLat = us(rl.ServerCPUPerMailUs), fmt.Sprintf("%.2f/%.2f ms", rl.Step.P50Ms, rl.Step.P99Ms)
		}
		lines = append(lines, fmt.Sprintf("  c=%-4d formd %8s/s  relay %8s/s  ÷ %s  formd CPU/delivered %8s  relay CPU/mail %8s  p50/p99 formd %.2f/%.2f ms relay %s",
			c.Concurrency, thousands(c.Formd), thousands(c.Relay), ratioText(c.Ratio), us(f.ServerCPUPerMailUs), rCPU, f.Step.P50Ms, f.Step.P99Ms, rLat))
	}
	for _, f := range r.Formd {
		drained := ""
		if !f.Drained {
			drained = " (NOT all arrived)"
		}
		lines = append(lines, fmt.Sprintf("  formd c=%-4d %s mails%s, %s/s over the step and a %.2f s drain; formd %.2f cores in the step; bench (load generator and sink) CPU/mail %s",
			f.Step.Concurrency, thousands(float64(f.Mails)), drained, thousands(f.DeliveredPerSecond), f.DrainSeconds, cores(f.Step.CPU), us(f.BenchCPUPerMailUs)))
	}
	for _, s := range r.Relay {
		lines = append(lines, fmt.Sprintf("  relay c=%-4d %s mails; relay %.2f cores in the step; bench CPU/mail %s; errors: %s",
			s.Step.Concurrency, thousands(float64(s.Mails)), cores(s.Step.CPU), us(s.BenchCPUPerMailUs), s.Step.errorSummary()))
	}
	if len(r.Profiles) > 0 {
		lines = append(lines, "  formd profiles: "+strings.Join(r.Profiles, ", "))
	}
	return lines
}

// cores is the server's cores of u (0 when unknown).
func cores(u *CPUUse) float64 {
	if u == nil {
		return 0
	}
	return u.FormdCores
}

func ratioText(x float64) string {
	if x <= 0 {
		return "n/a "
	}
	return fmt.Sprintf("%.2f", x)
}

// printRelayOnly is the report of a -relay-only run: the relay phase, its
// goals and the warnings.
func printRelayOnly(p func(string, ...any), rep *Report) {
	if r := rep.Relay; r != nil {
		for _, line := range relayLines(r, rep.Options) {
			p("%s", line)
		}
	}
	if len(rep.FormdMemory) > 0 {
		p("formd peak RSS %.1f MiB", peakMemory(rep.FormdMemory))
	}
	p("goals: %s", goalsText(rep.Goals))
	if len(rep.Warnings) > 0 {
		p("warnings:")
		for _, w := range rep.Warnings {
			p("  - %s", w)
		}
	}
	p("run took %.1f s (build %.1f s); load average at end %s", rep.DurationSeconds, rep.Setup.BuildSeconds, rep.LoadAvgEnd)
}
