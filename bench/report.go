package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

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
	// IntakeBaseline is the closed loop rerun without delivery workers.
	IntakeBaseline *IntakeBaseline `json:"intakeBaseline,omitempty"`
	// NaivePeer is the naive peer's closed loop and formd's intake beside it.
	NaivePeer *NaivePeerResult `json:"naivePeer,omitempty"`
	// Delivery is the end-to-end mail phase at a real SMTP server.
	Delivery *DeliveryResult `json:"delivery,omitempty"`
	// Preload is the open loop and peak step again on a preloaded database (-preload).
	Preload *PreloadResult `json:"preload,omitempty"`
	// KeepUp is the search for the highest rate at which deliveries keep up (-keep-up).
	KeepUp *KeepUpResult `json:"keepUp,omitempty"`
	// Relay is formd beside the relay peer at everyday load (-relay).
	Relay *RelayResult `json:"relay,omitempty"`
	// Archive is intake with the form's archive off and on (-archive).
	Archive *ArchiveResult `json:"archive,omitempty"`
	// Spam is intake with the form's spam check off and on (-spam);
	// SpamSkipped says why there is none, when the phase was asked for.
	Spam        *SpamResult `json:"spam,omitempty"`
	SpamSkipped string      `json:"spamSkipped,omitempty"`
	// FormdMemory is formd's memory at the end of each phase; FormdPeakRSSMiB
	// is the highest peak among them.
	FormdMemory     []MemoryUse `json:"formdMemory"`
	FormdPeakRSSMiB float64     `json:"formdPeakRssMiB"`
	// Statements is PostgreSQL's statement time per submission in the open
	// loop and the delivery phase; StatementsUnavailable says why not, when not.
	Statements            []*StatementReport `json:"statements"`
	StatementsUnavailable string             `json:"statementsUnavailable,omitempty"`
	Pgbench               []PgbenchRun       `json:"pgbench"`
	// PgbenchAtRate is pgbench at the open loop's rate, the machine's own
	// latency floor for a durable insert at that load.
	PgbenchAtRate   *PgbenchAtRate `json:"pgbenchAtOpenLoopRate,omitempty"`
	Ratio           float64        `json:"ratio"`
	RatioAtRef      float64        `json:"ratioAtReferenceConcurrency"`
	Goals           []Goal         `json:"goals"`
	Warnings        []string       `json:"warnings"`
	FormdStderrTail string         `json:"formdStderrTail,omitempty"`
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

func (u *CPUUse) String() string { return u.of("formd") }

// of words u with server naming the measured process (formd, or the naive
// peer in its steps).
func (u *CPUUse) of(server string) string {
	if u == nil {
		return "cpu n/a"
	}
	return fmt.Sprintf("cpu %s %.2f, load generator %.2f, machine %.2f cores", server, u.FormdCores, u.BenchCores, u.MachineCores)
}

// Goal is one pass/fail target of the run.
type Goal struct {
	Name   string  `json:"name"`
	Target string  `json:"target"`
	Value  float64 `json:"value"`
	Pass   bool    `json:"pass"`
	Known  bool    `json:"known"`
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
	if opts.NaivePeer {
		if rep.NaivePeer != nil {
			rep.NaivePeer.compare(intakeWithoutDelivery(opts, rep), rep.ClosedLoop.Steps)
		}
		rep.Goals = append(rep.Goals, naivePeerGoal(rep.NaivePeer, len(opts.Concurrency)))
	}
	o := rep.OpenLoop
	known := o != nil && o.Sent > 0
	pass := known && o.P99Ms <= ms(opts.GoalP99) && o.Errors() == 0
	var v float64
	if o != nil {
		v = o.P99Ms
	}
	rep.Goals = append(rep.Goals, Goal{Name: "open-loop p99 (no errors)", Target: fmt.Sprintf("<= %s", opts.GoalP99),
		Value: v, Known: known, Pass: pass})
	rep.FormdPeakRSSMiB = peakMemory(rep.FormdMemory)
	rep.Goals = append(rep.Goals, Goal{Name: "formd peak RSS MiB", Target: fmt.Sprintf("<= %.0f", opts.GoalRSSMiB),
		Value: rep.FormdPeakRSSMiB, Known: len(rep.FormdMemory) > 0,
		Pass: len(rep.FormdMemory) > 0 && rep.FormdPeakRSSMiB <= opts.GoalRSSMiB})
	rep.Goals = append(rep.Goals, statementGoals(rep.Statements, opts.GoalStatementUs)...)
	if opts.Delivery > 0 {
		d := rep.Delivery
		known := d != nil && d.Accepted > 0
		var ratio, p99 float64
		if d != nil {
			ratio, p99 = d.DeliveredRatio, d.P99Ms
		}
		rep.Goals = append(rep.Goals,
			Goal{Name: "delivered ÷ accepted (backlog not growing)", Target: ">= 1.00", Value: ratio, Known: known,
				Pass: known && ratio >= 1 && !d.BacklogGrowing},
			Goal{Name: "accept-to-SMTP p99", Target: fmt.Sprintf("<= %s", opts.GoalDeliveryP99), Value: p99, Known: known,
				Pass: known && p99 >= 0 && p99 <= ms(opts.GoalDeliveryP99)})
	}
	if opts.Relay {
		rep.Goals = append(rep.Goals, relayGoals(rep.Relay, opts.GoalRelayCPUUs)...)
	}
	if opts.Preload {
		rep.Goals = append(rep.Goals, preloadGoal(rep.Preload, opts.GoalPreloadRatio))
	}
	if opts.Archive {
		rep.Goals = append(rep.Goals, archiveGoal(rep.Archive, opts.GoalArchive))
	}
	if opts.Spam {
		rep.Goals = append(rep.Goals, spamGoal(rep.Spam, opts.GoalSpam))
	}
	if opts.KeepUp {
		rep.Goals = append(rep.Goals, keepUpGoal(rep.KeepUp, atPeak, rep.ClosedLoop.AtConcurrency, opts.KeepUpConfirm, opts.GoalKeepUp))
	}
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
	if o.RelayOnly {
		printRelayOnly(p, rep)
		return
	}
	server := "the machine's server"
	if o.PrivatePG {
		server = "a private throwaway cluster with pg_stat_statements"
		if o.PrivatePGCPUs > 0 {
			server += fmt.Sprintf(" on %d CPU(s) of its own; formd, the load generator, the naive peer and pgbench's client on the other %d",
				o.PrivatePGCPUs, rep.CPUs-o.PrivatePGCPUs)
		}
	}
	p("PostgreSQL %s (%s): synchronous_commit=%s fsync=%s wal_sync_method=%s commit_delay=%s",
		rep.Postgres.Version, server, rep.Postgres.SynchronousCommit, rep.Postgres.Fsync, rep.Postgres.WalSyncMethod, rep.Postgres.CommitDelay)
	if o.ClientIPs > 0 {
		p("clients: %s addresses in X-Forwarded-For through a trusted proxy (127.0.0.1); formd's per-IP limit stays on",
			thousands(float64(o.ClientIPs)))
	} else {
		p("clients: one address; formd's per-IP limit is off (FORMD_SUBMIT_RATE=0)")
	}
	if r := rep.OpenLoop; r != nil {
		p("open loop %s/s%s for %s: achieved %.1f/s p50 %.1f ms p99 %.1f ms p99.9 %.1f ms max %.1f ms (late: %d)",
			thousands(r.TargetRate), arrivalsNote(r.Arrivals), o.Open, r.AchievedRate, r.P50Ms, r.P99Ms, r.P999Ms, r.MaxMs, r.Late)
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
	if b := rep.IntakeBaseline; b != nil {
		var cpu *CPUUse
		if b.Step != nil {
			cpu = b.Step.CPU
		}
		p("intake with delivery on ÷ off at c=%d: %s ÷ %s accepted/s = %.2f (closed-loop peak step vs the closed loop rerun with FORMD_DELIVERY_WORKERS=0; %s)",
			b.Concurrency, thousands(b.WorkersOn), thousands(b.WorkersOff), b.Ratio, cpu)
	}
	printNaivePeer(p, rep.NaivePeer)
	if d := rep.Delivery; d != nil {
		lat := func(x float64) string {
			if x < 0 {
				return "undelivered"
			}
			return fmt.Sprintf("%.1f ms", x)
		}
		growing := "no"
		if d.BacklogGrowing {
			growing = "YES"
		}
		p("delivery at a real SMTP server (fresh database, open loop %s/s%s = %s, %.0f s):", thousands(d.Rate), arrivalsNote(o.Arrivals), d.RateSource, d.Seconds)
		p("  accepted %s (%s/s), delivered %s (%s/s during the load, %s/s in the wait after it), delivered ÷ accepted %.4f after waiting %.1f s; duplicates %d",
			thousands(float64(d.Accepted)), thousands(d.AcceptedPerSecond), thousands(float64(d.Delivered)), thousands(d.DeliveredPerSecond),
			thousands(d.WaitDeliveredPerSecond), d.DeliveredRatio, d.WaitSeconds, d.Duplicates)
		kept := "no"
		if d.KeptUp {
			kept = "yes"
		}
		p("  backlog at the end of the load %s, after the wait %s; growing over the load's second half: %s (%+.1f/s); delivered ÷ accepted within %s of the load's end %.4f; kept up (as -keep-up judges a run): %s",
			count(d.BacklogAtLoadEnd), count(d.BacklogAtWaitEnd), growing, d.BacklogSlope, keepUpWait, d.DeliveredRatioSoon, kept)
		p("  accept-to-SMTP-received p50 %s p99 %s p99.9 %s max %s", lat(d.P50Ms), lat(d.P99Ms), lat(d.P999Ms), lat(d.MaxMs))
		if r := d.Intake; r != nil {
			p("  intake meanwhile: p50 %.1f ms p99 %.1f ms p99.9 %.1f ms; %s; errors: %s", r.P50Ms, r.P99Ms, r.P999Ms, r.CPU, r.errorSummary())
		}
	}
	if r := rep.Relay; r != nil {
		for _, line := range relayLines(r, o) {
			p("%s", line)
		}
	}
	if a := rep.Archive; a != nil {
		for _, line := range archiveLines(a, o) {
			p("%s", line)
		}
	}
	for _, line := range spamLines(rep.Spam, rep.SpamSkipped, o) {
		p("%s", line)
	}
	if pre := rep.Preload; pre != nil {
		for _, line := range preloadLines(pre, o) {
			p("%s", line)
		}
	}
	switch {
	case rep.KeepUp != nil:
		for _, line := range keepUpLines(rep.KeepUp, o) {
			p("%s", line)
		}
	case !o.KeepUp:
		p("highest rate at which deliveries keep up: not measured (-keep-up searches for it)")
	}
	if len(rep.FormdMemory) > 0 {
		verdict := "met"
		if rep.FormdPeakRSSMiB > o.GoalRSSMiB {
			verdict = "NOT met"
		}
		p("formd peak RSS %.1f MiB (goal <= %.0f MiB: %s); at the end of each phase %s",
			rep.FormdPeakRSSMiB, o.GoalRSSMiB, verdict, memoryPhases(rep.FormdMemory))
	} else {
		p("formd peak RSS: unknown (read from /proc/<pid>/status, Linux only)")
	}
	if rep.StatementsUnavailable != "" {
		p("PostgreSQL statement time: not available on this server (%s); -private-pg runs the bench on a cluster that preloads pg_stat_statements",
			rep.StatementsUnavailable)
	}
	for _, st := range rep.Statements {
		for _, line := range statementLines(st, o.GoalStatementUs) {
			p("%s", line)
		}
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
	if at := rep.PgbenchAtRate; at != nil && at.Error == "" {
		vs := ""
		if rep.OpenLoop != nil && at.P99Ms > 0 {
			vs = fmt.Sprintf("; formd's open-loop p99 ÷ pgbench's = %.2f", rep.OpenLoop.P99Ms/at.P99Ms)
		}
		p("pgbench single-row INSERT at the open loop's rate (%s/s, %d clients, %d s, from each scheduled start): p50 %.2f ms p99 %.2f ms p99.9 %.2f ms%s",
			thousands(at.Rate), at.Clients, at.Seconds, at.P50Ms, at.P99Ms, at.P999Ms, vs)
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
	p("goals: %s", goalsText(rep.Goals))

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

// goalsText is every goal with its value and verdict, on one line.
func goalsText(goals []Goal) string {
	parts := make([]string, 0, len(goals))
	for _, g := range goals {
		verdict := "FAIL"
		switch {
		case !g.Known:
			verdict = "UNKNOWN"
		case g.Pass:
			verdict = "PASS"
		}
		// Four significant digits below 10: a ratio of 0.9994 must not print as a failing 1.00.
		v := fmt.Sprintf("%.2f", g.Value)
		if g.Value > -10 && g.Value < 10 {
			v = fmt.Sprintf("%.4g", g.Value)
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s) … %s", g.Name, g.Target, v, verdict))
	}
	return strings.Join(parts, "; ")
}

// memoryPhases lists each phase's peak and final RSS.
func memoryPhases(readings []MemoryUse) string {
	parts := make([]string, 0, len(readings))
	for _, m := range readings {
		parts = append(parts, fmt.Sprintf("%s %.1f (now %.1f)", m.Phase, m.PeakMiB, m.RSSMiB))
	}
	return "(peak, now, MiB): " + strings.Join(parts, "; ")
}

// statementGoals judges statement time per submission: per accepted in a
// phase without delivery counts, per accepted and per delivered otherwise.
func statementGoals(reports []*StatementReport, goalUs float64) []Goal {
	var goals []Goal
	for _, r := range reports {
		g := Goal{Target: fmt.Sprintf("<= %.0f", goalUs), Known: r.Accepted > 0}
		if r.Delivered < 0 {
			g.Name = "statement µs per accepted submission (" + r.Phase + ")"
			g.Value = r.PerAcceptedUs
		} else {
			g.Name = "statement µs per accepted and per delivered submission (" + r.Phase + ")"
			g.Value = max(r.PerAcceptedUs, r.PerDeliveredUs)
			g.Known = g.Known && r.Delivered > 0
		}
		g.Pass = g.Known && g.Value <= goalUs
		goals = append(goals, g)
	}
	return goals
}

// count formats a count that is -1 when unknown.
func count(n int) string {
	if n < 0 {
		return "unknown"
	}
	return thousands(float64(n))
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

// arrivalsNote names a schedule other than the default periodic one.
func arrivalsNote(kind string) string {
	if kind == arrivalsPoisson {
		return " (Poisson arrivals)"
	}
	return ""
}
