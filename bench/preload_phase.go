package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// PreloadResult is the preloaded phase: the empty run's open loop, and its
// closed-loop step at the peak concurrency, again on a database filled with
// a year of history before the bench's account was set up.
type PreloadResult struct {
	Fill     *Fill       `json:"fill"`
	OpenLoop *OpenResult `json:"openLoop"`
	// OpenLoopAgain is the preloaded open loop run a second time, right
	// after the first, as the empty one is (nil if it did not run).
	OpenLoopAgain *OpenResult `json:"openLoopAgain,omitempty"`
	// Step is the closed-loop step at the empty run's peak concurrency (nil
	// when the empty run's closed loop accepted nothing).
	Step *StepResult `json:"closedLoopStep,omitempty"`
	// Deliveries is mail delivery during the open loop: delivery work
	// competes with /submit, so the latencies compare only beside it.
	Deliveries *PhaseDeliveries  `json:"deliveries,omitempty"`
	Comparison PreloadComparison `json:"comparison"`
	// Memory and Statements go to the report's lists of all phases.
	Memory     *MemoryUse       `json:"-"`
	Statements *StatementReport `json:"-"`
}

// PreloadComparison sets the preloaded database's figures beside the empty
// one's; a ratio is preloaded ÷ empty (0 when either is missing).
type PreloadComparison struct {
	// EmptyP50Ms and EmptyP99Ms are the lower of the empty database's open
	// loops: the measured run's, before the preloaded phase, and the one run
	// again right after it (EmptyRuns). Runs made minutes apart on this
	// machine moved by more than the goal's 10%, and one stall makes a run's
	// p99 (README: Figures): the faster run is the baseline, so neither a
	// slow empty run nor the machine's drift can pass the goal for the
	// preloaded one.
	EmptyRuns  []OpenRun `json:"emptyRuns,omitempty"`
	EmptyP50Ms float64   `json:"emptyP50Ms"`
	// PreloadedP50Ms and PreloadedP99Ms are, likewise, the lower of the
	// preloaded database's two open loops (PreloadedRuns). The faster of
	// two runs is faster than one run on average, so a baseline taken that
	// way against a single preloaded run made identical databases look
	// slower when preloaded.
	PreloadedRuns  []OpenRun `json:"preloadedRuns,omitempty"`
	PreloadedP50Ms float64   `json:"preloadedP50Ms"`
	P50Ratio       float64   `json:"p50Ratio"`
	EmptyP99Ms     float64   `json:"emptyP99Ms"`
	PreloadedP99Ms float64   `json:"preloadedP99Ms"`
	P99Ratio       float64   `json:"p99Ratio"`
	// Mail delivered per second during each open loop (0: unknown).
	EmptyDeliveredPerSecond     float64 `json:"emptyDeliveredPerSecond,omitempty"`
	PreloadedDeliveredPerSecond float64 `json:"preloadedDeliveredPerSecond,omitempty"`
	// The closed-loop step at Concurrency (0: none ran).
	Concurrency                int     `json:"concurrency,omitempty"`
	EmptyAcceptedPerSecond     float64 `json:"emptyAcceptedPerSecond,omitempty"`
	PreloadedAcceptedPerSecond float64 `json:"preloadedAcceptedPerSecond,omitempty"`
	AcceptedRatio              float64 `json:"acceptedRatio,omitempty"`
}

// OpenRun is the p50 and p99 of one open loop.
type OpenRun struct {
	When  string  `json:"when"`
	P50Ms float64 `json:"p50Ms"`
	P99Ms float64 `json:"p99Ms"`
}

// ratio is a ÷ b, or 0 when either is not positive.
func ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return a / b
}

// comparePreload compares the faster of the preloaded runs with the faster
// of the empty ones (before, then after them), quantile by quantile; any of
// them may be nil.
func comparePreload(before, after, preloaded, preloadedAgain *OpenResult, emptyStep, preloadedStep *StepResult) PreloadComparison {
	var c PreloadComparison
	c.EmptyRuns, c.EmptyP50Ms, c.EmptyP99Ms = fasterOf(namedRun{"before", before}, namedRun{"after", after})
	c.PreloadedRuns, c.PreloadedP50Ms, c.PreloadedP99Ms = fasterOf(namedRun{"first", preloaded}, namedRun{"second", preloadedAgain})
	c.P50Ratio, c.P99Ratio = ratio(c.PreloadedP50Ms, c.EmptyP50Ms), ratio(c.PreloadedP99Ms, c.EmptyP99Ms)
	if emptyStep != nil && preloadedStep != nil {
		c.Concurrency = preloadedStep.Concurrency
		c.EmptyAcceptedPerSecond, c.PreloadedAcceptedPerSecond = emptyStep.AcceptedPerSecond, preloadedStep.AcceptedPerSecond
		c.AcceptedRatio = ratio(c.PreloadedAcceptedPerSecond, c.EmptyAcceptedPerSecond)
	}
	return c
}

// namedRun is an open loop (nil if it did not run) and when it ran.
type namedRun struct {
	when string
	run  *OpenResult
}

// fasterOf lists the runs that measured something, in order, with the
// lowest p50 and the lowest p99 among them (0 when none did).
func fasterOf(runs ...namedRun) (listed []OpenRun, p50, p99 float64) {
	for _, e := range runs {
		r := e.run
		if r == nil || r.P50Ms <= 0 || r.P99Ms <= 0 {
			continue
		}
		if len(listed) == 0 || r.P50Ms < p50 {
			p50 = r.P50Ms
		}
		if len(listed) == 0 || r.P99Ms < p99 {
			p99 = r.P99Ms
		}
		listed = append(listed, OpenRun{When: e.when, P50Ms: r.P50Ms, P99Ms: r.P99Ms})
	}
	return listed, p50, p99
}

// preloadGoal judges "flat as it grows": the preloaded open loop's p50 and
// p99 at most goal times the empty one's (its value is the larger ratio),
// with every preloaded request accepted. A faster preloaded run passes.
func preloadGoal(p *PreloadResult, goal float64) Goal {
	g := Goal{Name: "preloaded ÷ empty open-loop p50 and p99 (no errors)", Target: fmt.Sprintf("<= %.2f", goal)}
	if p == nil || p.OpenLoop == nil {
		return g
	}
	c := p.Comparison
	g.Known = p.OpenLoop.Sent > 0 && c.P50Ratio > 0 && c.P99Ratio > 0
	g.Value = max(c.P50Ratio, c.P99Ratio)
	g.Pass = g.Known && g.Value <= goal && p.OpenLoop.Errors() == 0 && (p.OpenLoopAgain == nil || p.OpenLoopAgain.Errors() == 0)
	return g
}

// stepAt is the closed-loop step run at concurrency c, or nil.
func stepAt(steps []*StepResult, c int) *StepResult {
	for _, s := range steps {
		if s.Concurrency == c {
			return s
		}
	}
	return nil
}

// measurePreloaded runs the preloaded phase and adds it to the report; a
// failure is reported as a warning, since the other figures stand.
func measurePreloaded(ctx context.Context, bin, tmp string, env []string, opts Options, rep *Report) error {
	p, tail, err := runPreloaded(ctx, bin, tmp, env, opts, rep)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		warnPhaseFailed(rep, "preloaded", err, tail)
		return nil
	}
	rep.Preload = p
	addMemory(rep, p.Memory)
	if p.Statements != nil {
		rep.Statements = append(rep.Statements, p.Statements)
	}
	for _, o := range []*OpenResult{p.OpenLoop, p.OpenLoopAgain} {
		if o != nil && o.Errors() > 0 {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("preloaded open loop: %d of %d requests not accepted: %s",
				o.Errors(), o.Sent, o.errorSummary()))
		}
	}
	if !p.Fill.CheckpointDone {
		rep.Warnings = append(rep.Warnings, "CHECKPOINT after the preload failed (not a superuser?): the fill's write-back may overlap the preloaded measurement")
	}
	return nil
}

// runPreloaded fills a fresh database (fullPreload), then sets up the
// bench's account and form through the API on it, starts formd with the
// measured run's settings, and repeats the empty run's warm-up, open loop
// and closed-loop step at the peak concurrency.
func runPreloaded(ctx context.Context, bin, dir string, env []string, opts Options, rep *Report) (*PreloadResult, string, error) {
	dir, dbURL, drop, err := phaseDatabase(ctx, dir, "preload", "preloaded phase")
	if err != nil {
		return nil, "", err
	}
	defer drop()
	want := fullPreload.Counts()
	conns := fillConnections()
	progress(fmt.Sprintf("preload: filling a fresh database with %s accounts, %s forms, %s submissions, %s events on %d connections",
		thousands(float64(want.Accounts)), thousands(float64(want.Forms)), thousands(float64(want.Submissions)),
		thousands(float64(want.Events)), conns))
	fill, err := fillDatabase(ctx, dbURL, fullPreload, conns)
	if err != nil {
		return nil, "", fmt.Errorf("filling the database: %w", err)
	}
	progress(fmt.Sprintf("preload: filled in %.1f s (VACUUM ANALYZE %.1f s); database %s MiB", fill.Seconds, fill.VacuumSeconds,
		thousands(float64(fill.DatabaseBytes)/(1<<20))))

	peak := rep.ClosedLoop.AtConcurrency
	pf, tail, err := startPhaseFormd(ctx, bin, dir, dbURL, env, opts, max(peak, opts.OpenWorkers), "preloaded database")
	if err != nil {
		return nil, tail, err
	}
	defer pf.stop()
	f, load := pf.f, pf.load
	var stats *statementStats
	if rep.StatementsUnavailable == "" {
		if stats, err = openStatementStats(ctx, dbURL); err != nil {
			rep.Warnings = append(rep.Warnings, "preloaded phase: no statement time: "+err.Error())
		}
		defer stats.Close()
		stats = resetStatements(ctx, stats, rep)
	}

	mon, err := newBacklogMonitor(ctx, dbURL)
	if err != nil {
		return nil, f.StderrTail(), err
	}
	defer mon.Close()

	progress(fmt.Sprintf("preload: open loop %.0f/s for %s", opts.Rate, opts.Open))
	p := &PreloadResult{Fill: fill}
	before := mon.Snapshot(ctx)
	cpu := markCPU(f.PID())
	p.OpenLoop = load.openLoop(ctx, opts.Rate, opts.Open, opts.OpenWorkers, nil)
	if ctx.Err() != nil {
		return nil, f.StderrTail(), ctx.Err()
	}
	p.OpenLoop.CPU = cpuSince(cpu, f.PID())
	d := mon.Phase(ctx, "preloaded open loop", before, p.OpenLoop.Accepted)
	p.Deliveries = &d
	if stats != nil {
		if p.Statements, err = stats.Read(ctx, "preloaded open loop", p.OpenLoop.Accepted, -1); err != nil {
			rep.Warnings = append(rep.Warnings, "reading pg_stat_statements after the preloaded open loop failed: "+err.Error())
		}
	}
	// The second open loop, as the empty database's second one: after a
	// CHECKPOINT (best effort), with the first's deliveries done or nearly.
	_ = checkpoint(ctx, dbURL)
	progress(fmt.Sprintf("preload: open loop again, %.0f/s for %s", opts.Rate, opts.Open))
	p.OpenLoopAgain = load.openLoop(ctx, opts.Rate, opts.Open, opts.OpenWorkers, nil)
	if ctx.Err() != nil {
		return nil, f.StderrTail(), ctx.Err()
	}
	if peak > 0 {
		progress(fmt.Sprintf("preload: closed loop c=%d for %s", peak, opts.Step))
		cpu := markCPU(f.PID())
		p.Step = load.closedStep(ctx, peak, opts.Step, opts.StepRequests)
		if ctx.Err() != nil {
			return nil, f.StderrTail(), ctx.Err()
		}
		p.Step.CPU = cpuSince(cpu, f.PID())
	}
	p.Memory = formdMemory("preloaded phase", f.PID())
	if f.Exited() {
		return nil, f.StderrTail(), fmt.Errorf("formd exited during the preloaded phase")
	}
	f.Stop()
	again, err := rerunEmptyOpenLoop(ctx, bin, dir, env, opts)
	if err != nil {
		rep.Warnings = append(rep.Warnings, "the empty database's open loop could not be run again after the preloaded one: "+err.Error())
	}
	p.Comparison = comparePreload(rep.OpenLoop, again, p.OpenLoop, p.OpenLoopAgain, stepAt(rep.ClosedLoop.Steps, peak), p.Step)
	for _, e := range rep.Deliveries {
		if e.Phase == "open loop" {
			p.Comparison.EmptyDeliveredPerSecond = e.DeliveredPerSecond
		}
	}
	p.Comparison.PreloadedDeliveredPerSecond = d.DeliveredPerSecond
	return p, f.StderrTail(), nil
}

// rerunEmptyOpenLoop runs the empty database's warm-up and open loop again,
// on a fresh database and formd, right after the preloaded phase.
func rerunEmptyOpenLoop(ctx context.Context, bin, dir string, env []string, opts Options) (*OpenResult, error) {
	dir, dbURL, drop, err := phaseDatabase(ctx, dir, "empty-again", "empty database's second open loop")
	if err != nil {
		return nil, err
	}
	defer drop()
	pf, _, err := startPhaseFormd(ctx, bin, dir, dbURL, env, opts, opts.OpenWorkers, "second empty database")
	if err != nil {
		return nil, err
	}
	defer pf.stop()
	// The preloaded phase's writes, like the fill's before it, are written
	// back now rather than during this run (a second full run's empty open
	// loop after it took 8.2 / 56 ms at p50 / p99 against 1.7 / 7.7 before).
	// Best effort, as after the fill: CHECKPOINT needs a superuser.
	_ = checkpoint(ctx, dbURL)
	progress(fmt.Sprintf("preload: the empty database's open loop again, %.0f/s for %s", opts.Rate, opts.Open))
	ol := pf.load.openLoop(ctx, opts.Rate, opts.Open, opts.OpenWorkers, nil)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if ol.Errors() > 0 {
		return nil, fmt.Errorf("%d of %d requests not accepted: %s", ol.Errors(), ol.Sent, ol.errorSummary())
	}
	return ol, nil
}

// preloadLines is the human-readable form of the preloaded phase.
func preloadLines(p *PreloadResult, o Options) []string {
	f, c := p.Fill, p.Comparison
	mib := func(b int64) string { return thousands(float64(b) / (1 << 20)) }
	checkpoint := " and CHECKPOINT"
	if !f.CheckpointDone {
		checkpoint = " (CHECKPOINT failed)"
	}
	r := f.Rows
	lines := []string{
		fmt.Sprintf("preloaded database: filled in %.1f s on %d connections (rows %.1f s, VACUUM ANALYZE%s %.1f s after them, so planner statistics and visibility are fresh)",
			f.Seconds, f.Connections, f.InsertSeconds, checkpoint, f.Seconds-f.InsertSeconds),
		fmt.Sprintf("  %s events, %s forms, %s accounts, %s deliveries (none due), %s verifications, %s Watermill messages; database %s MiB (events %s MiB)",
			thousands(float64(r.Events)), thousands(float64(r.Forms)), thousands(float64(r.Accounts)), thousands(float64(r.Deliveries)),
			thousands(float64(r.Verifications)), thousands(float64(r.OutboxMessages)), mib(f.DatabaseBytes), mib(f.EventsBytes)),
	}
	if ol := p.OpenLoop; ol != nil {
		lines = append(lines,
			fmt.Sprintf("  open loop %s/s%s for %s: achieved %.1f/s p50 %.1f ms p99 %.1f ms p99.9 %.1f ms max %.1f ms (late: %d); %s; errors: %s",
				thousands(ol.TargetRate), arrivalsNote(ol.Arrivals), o.Open, ol.AchievedRate, ol.P50Ms, ol.P99Ms, ol.P999Ms, ol.MaxMs, ol.Late, ol.CPU, ol.errorSummary()))
	}
	if d := p.Deliveries; d != nil {
		lines = append(lines, fmt.Sprintf("  mail delivery during the open loop: accepted %s/s, delivered %s/s (submissions awaiting delivery: %s → %s)",
			thousands(d.AcceptedPerSecond), thousands(d.DeliveredPerSecond), count(d.BacklogBefore), count(d.BacklogAfter)))
	}
	if s := p.Step; s != nil {
		lines = append(lines, fmt.Sprintf("  closed loop c=%d for %s: %s accepted/s p50 %.2f ms p99 %.2f ms; %s; errors: %s",
			s.Concurrency, o.Step, thousands(s.AcceptedPerSecond), s.P50Ms, s.P99Ms, s.CPU, s.errorSummary()))
	}
	cmp := fmt.Sprintf("  preloaded vs empty (the faster of each's open loops, p50 / p99: empty %s; preloaded %s): open-loop p50 %.2f → %.2f ms (×%.2f), p99 %.2f → %.2f ms (×%.2f)",
		runList(c.EmptyRuns), runList(c.PreloadedRuns), c.EmptyP50Ms, c.PreloadedP50Ms, c.P50Ratio, c.EmptyP99Ms, c.PreloadedP99Ms, c.P99Ratio)
	if c.EmptyDeliveredPerSecond > 0 || c.PreloadedDeliveredPerSecond > 0 {
		cmp += fmt.Sprintf(" with %s → %s mails/s delivered meanwhile", thousands(c.EmptyDeliveredPerSecond), thousands(c.PreloadedDeliveredPerSecond))
	}
	if c.Concurrency > 0 {
		cmp += fmt.Sprintf("; closed loop c=%d %s → %s accepted/s (×%.2f)", c.Concurrency,
			thousands(c.EmptyAcceptedPerSecond), thousands(c.PreloadedAcceptedPerSecond), c.AcceptedRatio)
	}
	verdict := "met"
	if g := preloadGoal(p, o.GoalPreloadRatio); !g.Known {
		verdict = "unknown"
	} else if !g.Pass {
		verdict = "NOT met"
	}
	return append(lines, cmp+fmt.Sprintf("; goal p50 and p99 ≤ ×%.2f of the empty database: %s", o.GoalPreloadRatio, verdict))
}

// runList is runs as "when p50 / p99 ms", comma-separated.
func runList(runs []OpenRun) string {
	var out []string
	for _, e := range runs {
		out = append(out, fmt.Sprintf("%s %.2f / %.2f ms", e.When, e.P50Ms, e.P99Ms))
	}
	return strings.Join(out, ", ")
}

// phaseFormd is a formd of its own for a phase, on a database the bench's
// account and form were set up in, mailing to an SMTP sink, warmed up, and
// the load generator aimed at it.
type phaseFormd struct {
	f    *Formd
	load *loader
	sink *smtpSink
	// form is the form the load goes to.
	form benchForm
}

// startPhaseFormd sets up the bench's account and form on dbURL through the
// API, starts formd on it with env and an SMTP sink, as in the empty
// database's phases, and warms it up as they do; on failure it also returns
// formd's log tail, when there is one.
func startPhaseFormd(ctx context.Context, bin, dir, dbURL string, env []string, opts Options, workers int, what string) (*phaseFormd, string, error) {
	form, err := setUpForm(ctx, bin, dir, dbURL)
	if err != nil {
		return nil, "", err
	}
	pf := &phaseFormd{form: form}
	if pf.sink, err = startSMTPSink(); err != nil {
		return nil, "", err
	}
	if pf.f, err = startFormd(bin, dir, dbURL, append(slices.Clone(env), pf.sink.formdEnv())...); err != nil {
		pf.stop()
		return nil, "", err
	}
	fail := func(err error) (*phaseFormd, string, error) {
		tail := pf.f.StderrTail()
		pf.stop()
		return nil, tail, err
	}
	if err := pf.f.WaitHealthy(ctx, 30*time.Second); err != nil {
		return fail(err)
	}
	pf.load = newLoader(pf.f.URL, form.AccessKey, workers, opts.ClientIPs).withArrivals(opts.Arrivals)
	if err := pf.load.probe(ctx); err != nil {
		return fail(fmt.Errorf("live POST /submit (%s): %w", what, err))
	}
	if opts.WarmupRequests > 0 {
		pf.load.closedStep(ctx, 8, 10*time.Second, opts.WarmupRequests)
	}
	return pf, "", nil
}

// stop stops formd and the sink, and closes the load generator's connections.
func (pf *phaseFormd) stop() {
	if pf.load != nil {
		pf.load.client.CloseIdleConnections()
	}
	if pf.f != nil {
		pf.f.Stop()
	}
	_ = pf.sink.Close()
}

// checkpoint runs CHECKPOINT on the cluster of dbURL.
func checkpoint(ctx context.Context, dbURL string) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, "CHECKPOINT")
	return err
}
