// Command bench measures formd's submission throughput and latency on
// loopback and compares them with what the same PostgreSQL server does for a
// plain single-row INSERT (pgbench) in the same run.
//
//	go run ./bench [-concurrency 1,8,32,64,128] [-step 5s] [-rate 1000] [-open 10s]
//
// It builds ./cmd/formd, starts it on a fresh database (pgtest.NewDatabase,
// which honours FORMD_TEST_DATABASE_URL), sets up a verified form through the
// real API, then runs an open loop at a fixed rate (latency measured from each
// request's scheduled time), a closed loop at rising concurrency, and pgbench.
// The report goes to stdout and, as JSON, to bench/results/latest.json.
// The exit code is 0 whenever the measurement ran, whether or not the goals
// were met; it is non-zero only when the run could not be set up, was
// interrupted, or the pgbench baseline measured nothing.
//
// formd's per-IP limit (FORMD_SUBMIT_RATE) would answer one load-generating
// address with 429s, so by default formd trusts 127.0.0.1 as a proxy and the
// requests spread over -client-ips addresses in X-Forwarded-For.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/formd/formd/adapters/postgres/pgtest"
)

// Options are the command-line settings of one run.
type Options struct {
	Concurrency    []int         `json:"concurrency"`
	Step           time.Duration `json:"-"`
	StepRequests   int           `json:"stepRequestCap"`
	WarmupRequests int           `json:"warmupRequests"`
	Rate           float64       `json:"openLoopRate"`
	Open           time.Duration `json:"-"`
	OpenWorkers    int           `json:"openLoopWorkers"`
	ClientIPs      int           `json:"clientIPs"`
	PgbenchRef     int           `json:"pgbenchReferenceConcurrency"`
	GoalRatio      float64       `json:"goalRatio"`
	GoalP99        time.Duration `json:"-"`
	Deadline       time.Duration `json:"-"`
	Out            string        `json:"-"`
	FormdEnv       string        `json:"formdEnv,omitempty"`

	StepSeconds     float64 `json:"stepSeconds"`
	OpenSeconds     float64 `json:"openLoopSeconds"`
	GoalP99Ms       float64 `json:"goalP99Ms"`
	DeadlineSeconds float64 `json:"deadlineSeconds"`
}

// Report is everything one run measured; it is written as JSON.
type Report struct {
	StartedAt       time.Time         `json:"startedAt"`
	DurationSeconds float64           `json:"durationSeconds"`
	GoVersion       string            `json:"goVersion"`
	CPUs            int               `json:"cpus"`
	LoadAvgStart    string            `json:"loadAvgStart"`
	LoadAvgEnd      string            `json:"loadAvgEnd"`
	Options         Options           `json:"options"`
	Postgres        PGSettings        `json:"postgres"`
	OpenLoop        *OpenResult       `json:"openLoop"`
	ClosedLoop      ClosedReport      `json:"closedLoop"`
	Deliveries      []PhaseDeliveries `json:"deliveries"`
	Pgbench         []PgbenchRun      `json:"pgbench"`
	Ratio           float64           `json:"ratio"`
	RatioAtRef      float64           `json:"ratioAtReferenceConcurrency"`
	Goals           []Goal            `json:"goals"`
	Warnings        []string          `json:"warnings"`
	FormdStderrTail string            `json:"formdStderrTail,omitempty"`
	// BaselineErrors say why pgbench measured nothing; the run then exits 1.
	BaselineErrors []string     `json:"baselineErrors,omitempty"`
	Setup          SetupTimings `json:"setup"`
}

// ClosedReport is the closed-loop part of the report.
type ClosedReport struct {
	Steps                []*StepResult `json:"steps"`
	MaxAcceptedPerSecond float64       `json:"maxAcceptedPerSecond"`
	AtConcurrency        int           `json:"atConcurrency"`
}

// CPUUse is how many CPU cores' worth each party used during a phase.
type CPUUse struct {
	FormdCores float64 `json:"formdCores"`
	BenchCores float64 `json:"loadGeneratorCores"`
	// MachineCores is everything busy: formd, PostgreSQL, the load generator and any other work.
	MachineCores float64 `json:"machineBusyCores"`
}

func (u *CPUUse) String() string {
	if u == nil {
		return "cpu n/a"
	}
	return fmt.Sprintf("cpu formd %.2f, load generator %.2f, machine %.2f cores", u.FormdCores, u.BenchCores, u.MachineCores)
}

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

// Goal is one pass/fail target of the run.
type Goal struct {
	Name   string  `json:"name"`
	Target string  `json:"target"`
	Value  float64 `json:"value"`
	Pass   bool    `json:"pass"`
	Known  bool    `json:"known"`
}

func main() {
	code := run()
	os.Exit(code)
}

func parseFlags() (Options, error) {
	var o Options
	var conc string
	flag.StringVar(&conc, "concurrency", "1,8,32,64,128", "closed-loop concurrency steps, comma-separated")
	flag.DurationVar(&o.Step, "step", 5*time.Second, "duration of each closed-loop step (and of each pgbench run)")
	flag.IntVar(&o.StepRequests, "step-requests", 200000, "request cap of each closed-loop step")
	flag.IntVar(&o.WarmupRequests, "warmup", 200, "unreported warm-up requests at concurrency 8 before the measurements")
	flag.Float64Var(&o.Rate, "rate", 1000, "open-loop rate, requests per second")
	flag.DurationVar(&o.Open, "open", 10*time.Second, "open-loop duration")
	flag.IntVar(&o.OpenWorkers, "open-workers", 0, "open-loop sender goroutines (0: max(128, rate), at most 4096)")
	flag.IntVar(&o.ClientIPs, "client-ips", 16384,
		"client addresses spread over X-Forwarded-For (formd trusts 127.0.0.1 as its proxy), so the per-IP limit sees many visitors; 0: one address and FORMD_SUBMIT_RATE=0")
	flag.IntVar(&o.PgbenchRef, "pgbench-ref", 64, "pgbench reference concurrency, run besides formd's peak")
	flag.Float64Var(&o.GoalRatio, "goal-ratio", 1.0, "goal: formd peak accepted/s ÷ pgbench tps at that concurrency")
	flag.DurationVar(&o.GoalP99, "goal-p99", 15*time.Millisecond, "goal: open-loop p99 latency")
	flag.DurationVar(&o.Deadline, "deadline", 3*time.Minute, "hard bound on the whole run, build included (a default run takes about 50 s)")
	flag.StringVar(&o.FormdEnv, "formd-env", "", "extra formd settings, comma-separated NAME=value (e.g. FORMD_DELIVERY_WORKERS=2)")
	flag.StringVar(&o.Out, "out", "", "JSON report path (default <module>/bench/results/latest.json)")
	flag.Parse()
	for _, f := range strings.Split(conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return o, fmt.Errorf("-concurrency: %q is not a positive integer", f)
		}
		o.Concurrency = append(o.Concurrency, n)
	}
	if o.Step <= 0 || o.Open <= 0 || o.Rate <= 0 || o.StepRequests < 1 || o.PgbenchRef < 1 {
		return o, errors.New("-step, -open, -rate, -step-requests and -pgbench-ref must be positive")
	}
	if o.ClientIPs < 0 || o.ClientIPs > 1<<24 {
		return o, errors.New("-client-ips must be between 0 and 16777216")
	}
	if o.OpenWorkers <= 0 {
		o.OpenWorkers = min(max(128, int(o.Rate)), 4096)
	}
	o.StepSeconds, o.OpenSeconds = o.Step.Seconds(), o.Open.Seconds()
	o.GoalP99Ms, o.DeadlineSeconds = ms(o.GoalP99), o.Deadline.Seconds()
	return o, nil
}

// run does the whole measurement and returns the exit code.
func run() int {
	opts, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, opts.Deadline)
	defer cancel()

	rep := &Report{StartedAt: time.Now(), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(),
		LoadAvgStart: loadAvg(), Options: opts, Warnings: []string{}}
	if err := measure(ctx, opts, rep); err != nil {
		switch {
		case errors.Is(err, context.Canceled):
			err = errors.New("interrupted")
		case errors.Is(err, context.DeadlineExceeded):
			err = fmt.Errorf("the run took longer than -deadline %s: %w", opts.Deadline, err)
		}
		fmt.Fprintln(os.Stderr, "\nbench: FAILED:", err)
		if rep.FormdStderrTail != "" {
			fmt.Fprintln(os.Stderr, "formd stderr (tail):\n"+rep.FormdStderrTail)
		}
		return 1
	}
	rep.LoadAvgEnd = loadAvg()
	rep.DurationSeconds = time.Since(rep.StartedAt).Seconds()
	printReport(os.Stdout, rep)
	out := opts.Out
	if out == "" {
		root, err := moduleRoot(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: locating the module:", err)
			return 1
		}
		out = filepath.Join(root, "bench", "results", "latest.json")
	}
	if err := writeJSON(out, rep); err != nil {
		fmt.Fprintln(os.Stderr, "bench: writing the JSON report:", err)
		return 1
	}
	fmt.Println("JSON report:", out)
	if len(rep.BaselineErrors) > 0 {
		fmt.Fprintln(os.Stderr, "bench: FAILED: the pgbench baseline measured nothing:", strings.Join(rep.BaselineErrors, "; "))
		return 1
	}
	return 0
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

	progress("starting formd")
	// formd's per-IP token bucket (FORMD_SUBMIT_RATE, 5/s by default) would
	// answer a single-address load generator with 429s: either the load comes
	// from many addresses through a trusted proxy, or the limit is off.
	extraEnv := []string{"FORMD_TRUSTED_PROXIES=127.0.0.1"}
	if opts.ClientIPs == 0 {
		extraEnv = []string{"FORMD_SUBMIT_RATE=0"}
	}
	for _, kv := range strings.Split(opts.FormdEnv, ",") {
		if kv = strings.TrimSpace(kv); kv != "" {
			extraEnv = append(extraEnv, kv)
		}
	}
	f, err := startFormd(bin, tmp, dbURL, extraEnv...)
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

	progress("setting up an account and a verified form through the API")
	t0 = time.Now()
	key, err := f.Setup(ctx)
	if err != nil {
		return fail(err)
	}
	rep.Setup.APISetupSeconds = time.Since(t0).Seconds()

	load := newLoader(f.URL, key, max(maxOf(opts.Concurrency), opts.OpenWorkers), opts.ClientIPs)
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
	cpu := markCPU(f.PID())
	rep.OpenLoop = load.openLoop(ctx, opts.Rate, opts.Open, opts.OpenWorkers)
	if ctx.Err() != nil {
		return fail(ctx.Err())
	}
	rep.OpenLoop.CPU = cpuSince(cpu, f.PID())
	rep.Deliveries = append(rep.Deliveries, mon.Phase(ctx, "open loop", before, rep.OpenLoop.Accepted))

	before = mon.Snapshot(ctx)
	accepted := 0
	for _, c := range opts.Concurrency {
		progress(fmt.Sprintf("closed loop: c=%d for %s", c, opts.Step))
		cpu := markCPU(f.PID())
		st := load.closedStep(ctx, c, opts.Step, opts.StepRequests)
		if ctx.Err() != nil {
			return fail(ctx.Err())
		}
		st.CPU = cpuSince(cpu, f.PID())
		accepted += st.Accepted
		rep.ClosedLoop.Steps = append(rep.ClosedLoop.Steps, st)
		if st.AcceptedPerSecond > rep.ClosedLoop.MaxAcceptedPerSecond {
			rep.ClosedLoop.MaxAcceptedPerSecond, rep.ClosedLoop.AtConcurrency = st.AcceptedPerSecond, c
		}
	}
	rep.Deliveries = append(rep.Deliveries, mon.Phase(ctx, "closed loop", before, accepted))
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

	peak := rep.ClosedLoop.AtConcurrency
	if peak == 0 {
		peak = opts.PgbenchRef
		rep.Warnings = append(rep.Warnings, "formd accepted nothing in the closed loop; pgbench runs at the reference concurrency only")
	}
	conc := []int{peak}
	if opts.PgbenchRef != peak {
		conc = append(conc, opts.PgbenchRef)
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

// judge computes the ratio and the goals.
func judge(opts Options, rep *Report) {
	var atPeak, atRef float64
	for _, r := range rep.Pgbench {
		if r.RequestedConcurrency == rep.ClosedLoop.AtConcurrency {
			atPeak = r.TPS
		}
		if r.RequestedConcurrency == opts.PgbenchRef {
			atRef = r.TPS
		}
	}
	if atPeak > 0 {
		rep.Ratio = rep.ClosedLoop.MaxAcceptedPerSecond / atPeak
	}
	for _, s := range rep.ClosedLoop.Steps {
		if s.Concurrency == opts.PgbenchRef && atRef > 0 {
			rep.RatioAtRef = s.AcceptedPerSecond / atRef
		}
	}
	rep.Goals = append(rep.Goals, Goal{Name: "ratio", Target: fmt.Sprintf(">= %.2f", opts.GoalRatio),
		Value: rep.Ratio, Known: atPeak > 0, Pass: atPeak > 0 && rep.Ratio >= opts.GoalRatio})
	o := rep.OpenLoop
	known := o != nil && o.Sent > 0
	pass := known && o.P99Ms <= ms(opts.GoalP99) && o.Errors() == 0
	var v float64
	if o != nil {
		v = o.P99Ms
	}
	rep.Goals = append(rep.Goals, Goal{Name: "open-loop p99 (no errors)", Target: fmt.Sprintf("<= %s", opts.GoalP99),
		Value: v, Known: known, Pass: pass})
}

func progress(msg string) {
	fmt.Fprintf(os.Stderr, "%s  %s\n", time.Now().Format("15:04:05.000"), msg)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func maxOf(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func writeJSON(path string, rep *Report) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// printReport writes the human-readable report.
func printReport(w io.Writer, rep *Report) {
	o := rep.Options
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("")
	p("formd submission benchmark, %s (%s, %d CPUs, load average at start %s)",
		rep.StartedAt.Format(time.RFC3339), rep.GoVersion, rep.CPUs, rep.LoadAvgStart)
	p("PostgreSQL %s: synchronous_commit=%s fsync=%s wal_sync_method=%s commit_delay=%s",
		rep.Postgres.Version, rep.Postgres.SynchronousCommit, rep.Postgres.Fsync, rep.Postgres.WalSyncMethod, rep.Postgres.CommitDelay)
	if o.ClientIPs > 0 {
		p("clients: %s addresses in X-Forwarded-For through a trusted proxy (127.0.0.1); formd's per-IP limit stays on",
			thousands(float64(o.ClientIPs)))
	} else {
		p("clients: one address; formd's per-IP limit is off (FORMD_SUBMIT_RATE=0)")
	}
	if r := rep.OpenLoop; r != nil {
		p("open loop %s/s for %s: achieved %.1f/s p50 %.1f ms p99 %.1f ms p99.9 %.1f ms max %.1f ms (late: %d)",
			thousands(r.TargetRate), o.Open, r.AchievedRate, r.P50Ms, r.P99Ms, r.P999Ms, r.MaxMs, r.Late)
		p("  latencies run from the scheduled time; send lag p50 %.2f ms p99 %.2f ms max %.1f ms; service time p50 %.1f ms p99 %.1f ms",
			r.SendLagP50Ms, r.SendLagP99Ms, r.SendLagMaxMs, r.ServiceP50Ms, r.ServiceP99Ms)
		p("  %s; errors: %s", r.CPU, r.errorSummary())
	}
	p("closed loop (%s steps, cap %s requests each):", o.Step, thousands(float64(o.StepRequests)))
	for _, s := range rep.ClosedLoop.Steps {
		note := ""
		if s.CapReached {
			note = "  (request cap reached)"
		}
		p("  c=%-4d %8s accepted/s  p50 %6.2f ms  p99 %7.2f ms  max %7.2f ms  %s  errors: %s%s",
			s.Concurrency, thousands(s.AcceptedPerSecond), s.P50Ms, s.P99Ms, s.MaxMs, s.CPU, s.errorSummary(), note)
	}
	p("  max %s accepted/s at c=%d", thousands(rep.ClosedLoop.MaxAcceptedPerSecond), rep.ClosedLoop.AtConcurrency)
	for _, d := range rep.Deliveries {
		p("mail delivery during the %s: accepted %s/s, delivered %s/s (submissions awaiting delivery: %s → %s)",
			d.Phase, thousands(d.AcceptedPerSecond), thousands(d.DeliveredPerSecond), thousands(float64(d.BacklogBefore)), thousands(float64(d.BacklogAfter)))
	}
	for _, r := range rep.Pgbench {
		label := ""
		if r.RequestedConcurrency == rep.ClosedLoop.AtConcurrency {
			label = " (formd's peak)"
		} else if r.RequestedConcurrency == o.PgbenchRef {
			label = " (reference)"
		}
		if r.Concurrency != r.RequestedConcurrency {
			label += fmt.Sprintf(" [ran with %d clients]", r.Concurrency)
		}
		if r.Error != "" {
			p("pgbench single-row INSERT at c=%d%s: MEASURED NOTHING (see below)", r.RequestedConcurrency, label)
			continue
		}
		p("pgbench single-row INSERT at c=%d%s: %s tps, latency avg %.2f ms (synchronous_commit=%s)",
			r.RequestedConcurrency, label, thousands(r.TPS), r.LatencyAvgMs, rep.Postgres.SynchronousCommit)
		if r.Failed != "" {
			p("  !!! pgbench failed transactions: %s", r.Failed)
		}
	}
	ref := ""
	if rep.RatioAtRef > 0 && o.PgbenchRef != rep.ClosedLoop.AtConcurrency {
		ref = fmt.Sprintf("; at c=%d: %.2f", o.PgbenchRef, rep.RatioAtRef)
	}
	ratio := "n/a"
	if rep.Ratio > 0 {
		ratio = fmt.Sprintf("%.2f", rep.Ratio)
	}
	p("ratio submissions/s ÷ pgbench inserts/s = %s (at c=%d)%s", ratio, rep.ClosedLoop.AtConcurrency, ref)
	var goals []string
	for _, g := range rep.Goals {
		verdict := "FAIL"
		switch {
		case !g.Known:
			verdict = "UNKNOWN"
		case g.Pass:
			verdict = "PASS"
		}
		goals = append(goals, fmt.Sprintf("%s %s (%.2f) … %s", g.Name, g.Target, g.Value, verdict))
	}
	p("goals: %s", strings.Join(goals, "; "))

	var errs []string
	for _, s := range rep.ClosedLoop.Steps {
		if s.Errors() > 0 {
			errs = append(errs, fmt.Sprintf("closed loop c=%d: %d of %d requests not accepted: %s", s.Concurrency, s.Errors(), s.Sent, s.errorSummary()))
		}
	}
	if r := rep.OpenLoop; r != nil && r.Errors() > 0 {
		errs = append(errs, fmt.Sprintf("open loop: %d of %d requests not accepted: %s", r.Errors(), r.Sent, r.errorSummary()))
	}
	if len(errs) > 0 {
		p("")
		p("!!!!!!!! ERRORS: formd did not accept every request !!!!!!!!")
		for _, e := range errs {
			p("!!! %s", e)
		}
		if rep.FormdStderrTail != "" {
			p("!!! formd's error log (tail):\n%s", rep.FormdStderrTail)
		}
	}
	for _, e := range rep.BaselineErrors {
		p("!!! pgbench baseline failed: %s", e)
	}
	if len(rep.Warnings) > 0 {
		p("warnings:")
		for _, w := range rep.Warnings {
			p("  - %s", w)
		}
	}
	p("run took %.1f s (build %.1f s, formd start %.1f s, API setup %.2f s); load average at end %s",
		rep.DurationSeconds, rep.Setup.BuildSeconds, rep.Setup.StartSeconds, rep.Setup.APISetupSeconds, rep.LoadAvgEnd)
}

// thousands formats a number rounded to an integer, with commas: 6,100.
func thousands(x float64) string {
	s := strconv.FormatInt(int64(x+0.5), 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
