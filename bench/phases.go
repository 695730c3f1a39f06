package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/formd/formd/adapters/postgres/pgtest"
)

// cpuMark is a reading of the CPU counters.
type cpuMark struct {
	at                 time.Time
	formd, bench, busy time.Duration
	ok                 bool
}

func markCPU(formdPID int) cpuMark {
	m := cpuMark{at: time.Now()}
	var ok1, ok2, ok3 bool
	m.formd, ok1 = processCPU(formdPID)
	m.bench, ok2 = processCPU(os.Getpid())
	m.busy, _, ok3 = machineCPU()
	m.ok = ok1 && ok2 && ok3
	return m
}

// cpuSince is the CPU used since start, or nil where it cannot be read.
func cpuSince(start cpuMark, formdPID int) *CPUUse {
	end := markCPU(formdPID)
	wall := end.at.Sub(start.at).Seconds()
	if !start.ok || !end.ok || wall <= 0 {
		return nil
	}
	return &CPUUse{FormdCores: (end.formd - start.formd).Seconds() / wall, BenchCores: (end.bench - start.bench).Seconds() / wall,
		MachineCores: (end.busy - start.busy).Seconds() / wall}
}

// measure runs every phase, filling rep. An error means the run could not
// be set up or was interrupted.
func measure(ctx context.Context, opts Options, rep *Report) error {
	tmp, err := os.MkdirTemp("", "formd-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	progress("building ./cmd/formd")
	t0 := time.Now()
	bin, err := buildFormd(ctx, tmp)
	if err != nil {
		return err
	}
	rep.Setup.BuildSeconds = time.Since(t0).Seconds()
	extraEnv := benchEnv(opts)
	if opts.RelayOnly {
		return measureRelayOnly(ctx, bin, tmp, extraEnv, opts, rep)
	}

	progress("creating a fresh database")
	dbCtx, dbCancel := context.WithTimeout(ctx, 60*time.Second)
	dbURL, drop, err := pgtest.NewDatabase(dbCtx)
	dbCancel()
	if err != nil {
		return fmt.Errorf("fresh database (FORMD_TEST_DATABASE_URL=%s): %w", pgtest.AdminURL(), err)
	}
	defer drop()
	rep.Postgres, err = readPGSettings(ctx, dbURL)
	if err != nil {
		return err
	}
	if rep.Postgres.SynchronousCommit != "on" {
		rep.Warnings = append(rep.Warnings, "synchronous_commit is "+rep.Postgres.SynchronousCommit+", not on: commits are not durable")
	}
	if rep.Postgres.Fsync != "on" {
		rep.Warnings = append(rep.Warnings, "fsync is "+rep.Postgres.Fsync+", not on: commits are not durable")
	}
	stats, err := openStatementStats(ctx, dbURL)
	if err != nil {
		rep.StatementsUnavailable = err.Error()
	}
	defer stats.Close()

	progress("starting formd")
	// The account and form are set up on a formd of default settings:
	// verification mails are deliveries, so a measured formd started without
	// delivery workers (-formd-env FORMD_DELIVERY_WORKERS=0) could not set up.
	progress("setting up an account and a verified form through the API")
	t0 = time.Now()
	key, err := setUp(ctx, bin, tmp, dbURL)
	if err != nil {
		return err
	}
	rep.Setup.APISetupSeconds = time.Since(t0).Seconds()

	// Mail goes to an SMTP server, as in production: the spool, a file per
	// mail, cost this machine's filesystem 0.15–0.6 ms of CPU a file and
	// was half of formd's CPU in the open loop (change 21).
	sink, err := startSMTPSink()
	if err != nil {
		return err
	}
	defer sink.Close()
	f, err := startFormd(bin, tmp, dbURL, append(extraEnv, sink.formdEnv())...)
	if err != nil {
		return err
	}
	defer f.Stop()
	fail := func(err error) error {
		rep.FormdStderrTail = f.StderrTail()
		return err
	}
	if err := f.WaitHealthy(ctx, 30*time.Second); err != nil {
		return fail(err)
	}
	rep.Setup.StartSeconds = time.Since(f.started).Seconds()

	load := newLoader(f.URL, key, max(maxOf(opts.Concurrency), opts.OpenWorkers), opts.ClientIPs).withArrivals(opts.Arrivals)
	defer load.client.CloseIdleConnections()
	if err := load.probe(ctx); err != nil {
		return fail(fmt.Errorf("live POST /submit after setup: %w", err))
	}
	mon, err := newBacklogMonitor(ctx, dbURL)
	if err != nil {
		return fail(err)
	}
	defer mon.Close()
	if opts.WarmupRequests > 0 {
		progress(fmt.Sprintf("warm-up: %d requests at c=8", opts.WarmupRequests))
		load.closedStep(ctx, 8, 10*time.Second, opts.WarmupRequests)
	}

	// The open loop runs first, on an idle formd: the closed loop leaves a
	// mail-delivery backlog behind that would otherwise compete with it.
	progress(fmt.Sprintf("open loop: %.0f/s for %s", opts.Rate, opts.Open))
	before := mon.Snapshot(ctx)
	stats = resetStatements(ctx, stats, rep)
	cpu := markCPU(f.PID())
	rep.OpenLoop = load.openLoop(ctx, opts.Rate, opts.Open, opts.OpenWorkers, nil)
	if ctx.Err() != nil {
		return fail(ctx.Err())
	}
	rep.OpenLoop.CPU = cpuSince(cpu, f.PID())
	addMemory(rep, formdMemory("open loop", f.PID()))
	readStatements(ctx, stats, rep, "open loop", rep.OpenLoop.Accepted, -1)
	rep.Deliveries = append(rep.Deliveries, mon.Phase(ctx, "open loop", before, rep.OpenLoop.Accepted))

	before = mon.Snapshot(ctx)
	steps, err := load.closedSteps(ctx, f.PID(), opts, closedLoopPhase)
	if err != nil {
		return fail(err)
	}
	accepted := 0
	for _, st := range steps {
		accepted += st.Accepted
		rep.ClosedLoop.Steps = append(rep.ClosedLoop.Steps, st)
		if st.AcceptedPerSecond > rep.ClosedLoop.MaxAcceptedPerSecond {
			rep.ClosedLoop.MaxAcceptedPerSecond, rep.ClosedLoop.AtConcurrency = st.AcceptedPerSecond, st.Concurrency
		}
	}
	rep.Deliveries = append(rep.Deliveries, mon.Phase(ctx, closedLoopPhase, before, accepted))
	addMemory(rep, formdMemory("closed loop (same formd as the open loop)", f.PID()))
	for _, d := range rep.Deliveries {
		if d.DeliveredPerSecond < 0.9*d.AcceptedPerSecond {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf(
				"mail delivery falls behind during the %s (%s/s delivered for %s/s accepted): the backlog grows and its work competes with /submit",
				d.Phase, thousands(d.DeliveredPerSecond), thousands(d.AcceptedPerSecond)))
		}
	}
	if f.Exited() {
		rep.Warnings = append(rep.Warnings, "formd exited during the measurement: see its log in the report")
	}
	rep.FormdStderrTail = f.StderrTail()
	mon.Close()

	// pgbench gets the machine (and the connection slots) to itself.
	progress("stopping formd")
	f.Stop()

	stats.Close()
	if opts.NaivePeer {
		progress("naive peer: Go, Gin and one INSERT per request, on the same database")
		r, err := runNaivePeer(ctx, tmp, dbURL, key, opts)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			rep.Warnings = append(rep.Warnings, "naive peer failed: "+err.Error())
		}
		rep.NaivePeer = r
	}
	if err := measureDelivery(ctx, bin, tmp, dbURL, key, extraEnv, opts, rep); err != nil {
		return err
	}
	if opts.Relay {
		if err := measureRelay(ctx, bin, tmp, extraEnv, opts, rep); err != nil {
			return err
		}
	}
	if opts.Archive {
		if err := measureArchive(ctx, bin, tmp, extraEnv, opts, rep); err != nil {
			return err
		}
	}
	if opts.Spam {
		if err := measureSpam(ctx, bin, tmp, extraEnv, opts, rep); err != nil {
			return err
		}
	}
	if opts.Preload {
		if err := measurePreloaded(ctx, bin, tmp, extraEnv, opts, rep); err != nil {
			return err
		}
	}

	peak := rep.ClosedLoop.AtConcurrency
	if peak == 0 {
		peak = opts.PgbenchRef
		rep.Warnings = append(rep.Warnings, "formd accepted nothing in the closed loop; pgbench runs at the reference concurrency only")
	}
	conc := []int{peak}
	if opts.PgbenchRef != peak {
		conc = append(conc, opts.PgbenchRef)
	}
	// The search runs last before pgbench, so a -deadline it outgrows stops
	// it and not the phases before it.
	if opts.KeepUp {
		if err := measureKeepUp(ctx, bin, tmp, extraEnv, opts, rep, len(conc)); err != nil {
			return err
		}
	}
	secs := max(1, int(opts.Step.Round(time.Second)/time.Second))
	runs, err := runPgbench(ctx, dbURL, tmp, conc, secs)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		rep.BaselineErrors = append(rep.BaselineErrors, err.Error())
	}
	rep.Pgbench = runs
	if err == nil && rep.OpenLoop != nil {
		at := runPgbenchAtRate(ctx, dbURL, tmp, opts.Rate, max(1, int(opts.Open.Round(time.Second)/time.Second)))
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if at.Error != "" {
			rep.BaselineErrors = append(rep.BaselineErrors, at.Error)
		}
		rep.PgbenchAtRate = &at
	}
	for _, r := range runs {
		if r.Note != "" {
			rep.Warnings = append(rep.Warnings, r.Note)
		}
		if r.Error != "" {
			rep.BaselineErrors = append(rep.BaselineErrors, r.Error)
		}
	}
	judge(opts, rep)
	if rep.LoadAvgStart != "" {
		if l1, err := strconv.ParseFloat(strings.Fields(rep.LoadAvgStart)[0], 64); err == nil && l1 > float64(rep.CPUs) {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf(
				"the machine was already busy at start (load average %s on %d CPUs): other work competes with formd, PostgreSQL and the load generator",
				rep.LoadAvgStart, rep.CPUs))
		}
	}
	return nil
}

// benchEnv is the settings every measured formd gets besides its database,
// port and folders.
func benchEnv(opts Options) []string {
	// formd's per-IP token bucket (FORMD_SUBMIT_RATE, 5/s by default) would
	// answer a single-address load generator with 429s: either the load comes
	// from many addresses through a trusted proxy, or the limit is off.
	env := []string{"FORMD_TRUSTED_PROXIES=127.0.0.1"}
	if opts.ClientIPs == 0 {
		env = []string{"FORMD_SUBMIT_RATE=0"}
	}
	// The load goes to one form of one free account: its per-form flood
	// limit and monthly quota would refuse nearly all of it. The quota is
	// still charged in every commit, at its hot row, as in production.
	env = append(env, "FORMD_FORM_SUBMIT_RATE=0", "FORMD_QUOTA_FREE=2000000000")
	for _, kv := range strings.Split(opts.FormdEnv, ",") {
		if kv = strings.TrimSpace(kv); kv != "" {
			env = append(env, kv)
		}
	}
	return env
}

// measureDelivery runs the intake baseline without delivery workers and the
// delivery phase, each on a formd of its own, after the closed loop.
func measureDelivery(ctx context.Context, bin, tmp, dbURL, key string, env []string, opts Options, rep *Report) error {
	workersOff := strings.Contains(opts.FormdEnv, "FORMD_DELIVERY_WORKERS=0")
	peak := rep.ClosedLoop.AtConcurrency
	switch {
	case !opts.IntakeBaseline:
	case workersOff:
		rep.Warnings = append(rep.Warnings, "-formd-env turns delivery workers off: no intake baseline without them")
	case peak == 0:
		rep.Warnings = append(rep.Warnings, "formd accepted nothing in the closed loop: no intake baseline")
	default:
		b, err := runIntakeBaseline(ctx, bin, tmp, dbURL, key, env, opts, peak, rep.ClosedLoop.MaxAcceptedPerSecond)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			rep.Warnings = append(rep.Warnings, "intake baseline failed: "+err.Error())
		}
		rep.IntakeBaseline = b
		if b != nil {
			addMemory(rep, b.Memory)
		}
	}

	if opts.Delivery == 0 {
		return nil
	}
	rate, source := opts.DeliveryRate, "-delivery-rate"
	if rate == 0 {
		rate, source = deliveryPhaseRate(rep)
	}
	switch {
	case workersOff:
		rep.Warnings = append(rep.Warnings, "-formd-env turns delivery workers off: no delivery phase")
		return nil
	case rate < 1:
		rep.Warnings = append(rep.Warnings, "no rate for the delivery phase (the closed loop accepted nothing)")
		return nil
	}
	progress(fmt.Sprintf("delivery: fresh database, formd sending to an in-process SMTP server, %.0f/s for %s", rate, opts.Delivery))
	d, tail, err := runDelivery(ctx, bin, tmp, env, opts, deliveryRun{Rate: rate, Source: source, Load: opts.Delivery,
		Wait: opts.DeliveryWait, Label: "delivery phase", Dir: "delivery", WithStatements: rep.StatementsUnavailable == ""})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		// A failed phase is reported, not fatal: the other figures stand.
		warnPhaseFailed(rep, "delivery", err, tail)
		return nil
	}
	rep.Delivery = d
	addMemory(rep, d.Memory)
	if d.Statements != nil {
		rep.Statements = append(rep.Statements, d.Statements)
	}
	rep.Warnings = append(rep.Warnings, d.notes...)
	if d.Intake.Errors() > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("delivery phase: %d of %d submissions not accepted: %s",
			d.Intake.Errors(), d.Intake.Sent, d.Intake.errorSummary()))
	}
	return nil
}

// addMemory records a memory reading, if there is one.
func addMemory(rep *Report, m *MemoryUse) {
	if m != nil {
		rep.FormdMemory = append(rep.FormdMemory, *m)
	}
}

// resetStatements starts a phase's statement statistics afresh; on failure
// it warns and returns nil, so the phase reports no statement time.
func resetStatements(ctx context.Context, stats *statementStats, rep *Report) *statementStats {
	if stats == nil {
		return nil
	}
	if err := stats.Reset(ctx); err != nil {
		rep.Warnings = append(rep.Warnings, "pg_stat_statements_reset failed: "+err.Error())
		stats.Close()
		return nil
	}
	return stats
}

// readStatements adds a phase's statement time to the report (nothing for nil stats).
func readStatements(ctx context.Context, stats *statementStats, rep *Report, phase string, accepted, delivered int) {
	if stats == nil {
		return
	}
	st, err := stats.Read(ctx, phase, accepted, delivered)
	if err != nil {
		rep.Warnings = append(rep.Warnings, "reading pg_stat_statements after the "+phase+" failed: "+err.Error())
		return
	}
	rep.Statements = append(rep.Statements, st)
}

func maxOf(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// setUp creates a verified account and form with a formd of its own, stopped
// before the measured one starts, and returns the form's access key.
func setUp(ctx context.Context, bin, dir, dbURL string) (string, error) {
	form, err := setUpForm(ctx, bin, dir, dbURL)
	return form.AccessKey, err
}

// setUpForm is setUp that returns the form's id and the account's
// credential too, for a phase that changes the form's settings.
func setUpForm(ctx context.Context, bin, dir, dbURL string) (benchForm, error) {
	f, err := startFormd(bin, dir, dbURL, "FORMD_SUBMIT_RATE=0")
	if err != nil {
		return benchForm{}, err
	}
	defer f.Stop()
	if err := f.WaitHealthy(ctx, 30*time.Second); err != nil {
		return benchForm{}, fmt.Errorf("%w\n%s", err, f.StderrTail())
	}
	form, err := f.Setup(ctx)
	if err != nil {
		return benchForm{}, fmt.Errorf("%w\n%s", err, f.StderrTail())
	}
	return form, nil
}

// phaseDatabase makes a phase's folder under dir and a fresh database of its
// own; drop removes the database.
func phaseDatabase(ctx context.Context, dir, sub, label string) (string, string, func(), error) {
	dir = filepath.Join(dir, sub)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", "", nil, err
	}
	dbCtx, dbCancel := context.WithTimeout(ctx, 60*time.Second)
	defer dbCancel()
	dbURL, drop, err := pgtest.NewDatabase(dbCtx)
	if err != nil {
		return "", "", nil, fmt.Errorf("fresh database for the %s: %w", label, err)
	}
	return dir, dbURL, drop, nil
}

// closedLoopPhase names the closed loop in the report's phases.
const closedLoopPhase = "closed loop"

// deliveryPhaseRate is the delivery phase's default rate: half of the
// closed loop's maximum, or the rate formd delivered at during the closed
// loop if that is lower. Senders that give way to saturated intake
// (FORMD_DELIVERY_GIVE_WAY_AT) let the closed loop accept about three
// times what formd delivers meanwhile, and half of that peak is a rate
// whose mail only falls behind, where the phase is meant to measure mail
// at a rate formd sustains.
func deliveryPhaseRate(rep *Report) (rate float64, source string) {
	half := rep.ClosedLoop.MaxAcceptedPerSecond / 2
	for _, d := range rep.Deliveries {
		if d.Phase == closedLoopPhase && d.DeliveredPerSecond > 0 && d.DeliveredPerSecond < half {
			return d.DeliveredPerSecond, "the closed loop's delivered rate, below half of its maximum"
		}
	}
	return half, "half of the closed loop's maximum"
}
