package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// DeliveryResult is the delivery phase: mail measured end to end, from the
// 200 of POST /submit to the message's arrival at a real SMTP server.
type DeliveryResult struct {
	// Rate is the open-loop rate; RateSource says where it came from.
	Rate       float64 `json:"rate"`
	RateSource string  `json:"rateSource"`
	Seconds    float64 `json:"seconds"`
	// Accepted submissions, and those whose answer carried no deliveryId.
	Accepted     int `json:"accepted"`
	WithoutID    int `json:"acceptedWithoutDeliveryId"`
	Delivered    int `json:"delivered"`
	Duplicates   int `json:"duplicates"`
	ForeignMails int `json:"foreignMails"`
	// DeliveredRatio is delivered ÷ accepted once the wait after the load ended.
	DeliveredRatio float64 `json:"deliveredRatio"`
	// AcceptedPerSecond and DeliveredPerSecond are over the load's duration;
	// the latter counts the accepted submissions' mails that arrived in it.
	AcceptedPerSecond  float64 `json:"acceptedPerSecond"`
	DeliveredPerSecond float64 `json:"deliveredPerSecond"`
	// WaitDeliveredPerSecond is the rate the rest arrived at after the load:
	// what delivery does once intake stops competing with it.
	WaitDeliveredPerSecond float64 `json:"waitDeliveredPerSecond"`
	// Backlog is the submissions awaiting delivery (submission_payloads)
	// as the load started, at its end and once the wait ended (-1: unknown).
	BacklogAtLoadStart int `json:"backlogAtLoadStart"`
	BacklogAtLoadEnd   int `json:"backlogAtLoadEnd"`
	BacklogAtWaitEnd   int `json:"backlogAtWaitEnd"`
	// BacklogSlope is the backlog's growth over the load's second half, per
	// second; BacklogGrowing is true when it exceeds 2% of the accepted rate.
	BacklogSlope   float64 `json:"backlogSlopePerSecond"`
	BacklogGrowing bool    `json:"backlogGrowing"`
	WaitSeconds    float64 `json:"waitSeconds"`
	// DeliveredRatioSoon is delivered ÷ accepted counting only the mails
	// that arrived within keepUpWait of the load's end, whatever the wait.
	DeliveredRatioSoon float64 `json:"deliveredRatioWithinKeepUpWait"`
	// KeptUp is keptUp's verdict on this run.
	KeptUp bool `json:"keptUp"`
	// Latencies run from the 200's arrival to the message's first arrival;
	// a mail that never arrived counts as slower than every other, and a
	// quantile that falls on one is reported as -1. A latency can be
	// negative: a worker may send the mail before the client has read the 200.
	P50Ms  float64     `json:"p50Ms"`
	P99Ms  float64     `json:"p99Ms"`
	P999Ms float64     `json:"p999Ms"`
	MaxMs  float64     `json:"maxMs"`
	Intake *OpenResult `json:"intake"`
	// Memory and Statements go to the report's lists of all phases; notes to its warnings.
	Memory     *MemoryUse       `json:"-"`
	Statements *StatementReport `json:"-"`
	notes      []string
}

// IntakeBaseline is the closed loop run again with FORMD_DELIVERY_WORKERS=0:
// intake without delivery competing, at every step (compared with the naive
// peer's) and, in its head fields, at formd's peak concurrency.
type IntakeBaseline struct {
	Concurrency int         `json:"concurrency"`
	WorkersOn   float64     `json:"acceptedPerSecondWorkersOn"`
	WorkersOff  float64     `json:"acceptedPerSecondWorkersOff"`
	Ratio       float64     `json:"ratio"`
	Step        *StepResult `json:"workersOffStep"`
	// Steps are every concurrency's step without delivery workers, the
	// peak's (Step) among them.
	Steps []*StepResult `json:"workersOffSteps"`
	// Memory goes to the report's list of all phases.
	Memory *MemoryUse `json:"-"`
}

// never stands for a mail that did not arrive: it sorts after every latency.
const never = time.Duration(math.MaxInt64)

// runIntakeBaseline runs the closed loop's steps again against a formd
// without delivery workers on the same database; the formd that measured
// the closed loop must be stopped first. peak is the closed loop's peak
// concurrency and on its accepted/s there.
func runIntakeBaseline(ctx context.Context, bin, dir, dbURL, key string, env []string, opts Options, peak int, on float64) (*IntakeBaseline, error) {
	f, err := startFormd(bin, dir, dbURL, append(slices.Clone(env), "FORMD_DELIVERY_WORKERS=0")...)
	if err != nil {
		return nil, err
	}
	defer f.Stop()
	if err := f.WaitHealthy(ctx, 30*time.Second); err != nil {
		return nil, fmt.Errorf("%w\n%s", err, f.StderrTail())
	}
	load := newLoader(f.URL, key, maxOf(opts.Concurrency), opts.ClientIPs)
	defer load.client.CloseIdleConnections()
	if err := load.probe(ctx); err != nil {
		return nil, fmt.Errorf("live POST /submit (delivery workers off): %w\n%s", err, f.StderrTail())
	}
	load.closedStep(ctx, 8, 10*time.Second, opts.WarmupRequests)
	steps, err := load.closedSteps(ctx, f.PID(), opts, "intake baseline with FORMD_DELIVERY_WORKERS=0")
	if err != nil {
		return nil, err
	}
	b := &IntakeBaseline{Concurrency: peak, WorkersOn: on, Steps: steps}
	for _, st := range steps {
		if st.Concurrency == peak {
			b.Step, b.WorkersOff = st, st.AcceptedPerSecond
		}
	}
	if b.WorkersOff > 0 {
		b.Ratio = on / b.WorkersOff
	}
	b.Memory = formdMemory("intake baseline", f.PID())
	return b, nil
}

// deliveryRun is one run of the delivery measurement: the delivery phase,
// or one step of the -keep-up search.
type deliveryRun struct {
	// Rate is the open-loop rate; Source says where it came from.
	Rate   float64
	Source string
	// Load is the open loop's duration; Wait bounds the wait for the mails after it.
	Load, Wait time.Duration
	// Label names the run in progress lines, errors and the memory reading.
	Label string
	// Dir is the run's own folder under the bench's (formd's data and mail
	// spool): a repeated run must not read an earlier run's mails.
	Dir string
	// WithStatements measures PostgreSQL's statement time from the load's
	// start to the wait's end.
	WithStatements bool
}

// runDelivery measures mail end to end on a fresh database, so the backlog
// the closed loop left behind does not compete: it sets up a form, starts
// formd sending to an in-process SMTP server, runs an open loop at run.Rate
// for run.Load, then waits up to run.Wait for the mails. It can be called
// repeatedly: every run has a database, a formd and an SMTP server of its own.
func runDelivery(ctx context.Context, bin, dir string, env []string, opts Options, run deliveryRun) (*DeliveryResult, string, error) {
	dir, dbURL, drop, err := phaseDatabase(ctx, dir, run.Dir, run.Label)
	if err != nil {
		return nil, "", err
	}
	defer drop()
	// Setup verifies through the spool of a formd of its own.
	key, err := setUp(ctx, bin, dir, dbURL)
	if err != nil {
		return nil, "", err
	}
	sink, err := startSMTPSink()
	if err != nil {
		return nil, "", err
	}
	defer sink.Close()
	f, err := startFormd(bin, dir, dbURL, append(slices.Clone(env), sink.formdEnv())...)
	if err != nil {
		return nil, "", err
	}
	defer f.Stop()
	if err := f.WaitHealthy(ctx, 30*time.Second); err != nil {
		return nil, f.StderrTail(), err
	}
	workers := min(max(128, int(run.Rate)), 4096)
	load := newLoader(f.URL, key, workers, opts.ClientIPs).withArrivals(opts.Arrivals)
	defer load.client.CloseIdleConnections()
	if err := load.probe(ctx); err != nil {
		return nil, f.StderrTail(), fmt.Errorf("live POST /submit (%s): %w", run.Label, err)
	}
	mon, err := newBacklogMonitor(ctx, dbURL)
	if err != nil {
		return nil, f.StderrTail(), err
	}
	defer mon.Close()
	var notes []string
	var stats *statementStats
	if run.WithStatements {
		if stats, err = openStatementStats(ctx, dbURL); err != nil {
			notes = append(notes, run.Label+": no statement time: "+err.Error())
		} else if err = stats.Reset(ctx); err != nil {
			notes = append(notes, run.Label+": pg_stat_statements_reset failed: "+err.Error())
			stats.Close()
			stats = nil
		}
		defer stats.Close()
	}

	var mu sync.Mutex
	accepted := map[string]time.Time{} // delivery id → the 200's arrival
	withoutID := 0
	onAnswer := func(a answer, done time.Time) {
		if !a.accepted {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if a.deliveryID == "" {
			withoutID++
			return
		}
		accepted[a.deliveryID] = done
	}

	// The monitor's connection is read by this goroutine alone while the
	// load runs; one sample a second is enough to see a trend.
	var samples []backlogSnapshot
	sampleCtx, stopSampling := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			// ctx, not sampleCtx: cancelling a query would close the connection.
			samples = append(samples, mon.Snapshot(ctx))
			select {
			case <-sampleCtx.Done():
				return
			case <-t.C:
			}
		}
	}()
	cpu := markCPU(f.PID())
	start := time.Now()
	intake := load.openLoop(ctx, run.Rate, run.Load, workers, onAnswer)
	loadEnd := time.Now()
	intake.CPU = cpuSince(cpu, f.PID())
	stopSampling()
	<-sampled
	if ctx.Err() != nil {
		return nil, f.StderrTail(), ctx.Err()
	}
	endSnap := mon.Snapshot(ctx)

	r := &DeliveryResult{Rate: run.Rate, RateSource: run.Source, Seconds: loadEnd.Sub(start).Seconds(), Intake: intake,
		Accepted: len(accepted) + withoutID, WithoutID: withoutID, BacklogAtLoadStart: -1, BacklogAtLoadEnd: endSnap.n}
	if len(samples) > 0 {
		r.BacklogAtLoadStart = samples[0].n // taken just before the schedule's first request
	}
	r.BacklogSlope, r.BacklogGrowing = backlogTrend(samples, start, loadEnd, intake.AchievedRate)

	// Wait for the mails, bounded: a phase whose mail never comes must end.
	progress(fmt.Sprintf("%s: waiting up to %s for %d mails", run.Label, run.Wait, len(accepted)))
	waitStart := time.Now()
	for ctx.Err() == nil && time.Since(waitStart) < run.Wait && sink.missing(accepted) > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	if ctx.Err() != nil {
		return nil, f.StderrTail(), ctx.Err()
	}
	r.WaitSeconds = time.Since(waitStart).Seconds()
	r.BacklogAtWaitEnd = mon.Snapshot(ctx).n
	r.Memory = formdMemory(run.Label, f.PID())
	r.notes = notes

	first, dups, other := sink.arrivals()
	r.Duplicates, r.ForeignMails = dups, other
	lat := make(Histogram, 0, len(accepted))
	inLoad, soon := 0, 0
	for id, acc := range accepted {
		got, ok := first[id]
		if !ok {
			lat = append(lat, never)
			continue
		}
		r.Delivered++
		if !got.After(loadEnd) {
			inLoad++
		}
		if !got.After(loadEnd.Add(keepUpWait)) {
			soon++
		}
		lat = append(lat, got.Sub(acc))
	}
	// The probe and the answers without an id are not in accepted: they can
	// only make delivered exceed what is counted, so they are left out.
	if r.Accepted > 0 {
		r.DeliveredRatio = float64(r.Delivered) / float64(r.Accepted)
		r.DeliveredRatioSoon = float64(soon) / float64(r.Accepted)
	}
	r.AcceptedPerSecond = float64(r.Accepted) / r.Seconds
	r.DeliveredPerSecond = float64(inLoad) / r.Seconds
	if r.WaitSeconds > 0 {
		r.WaitDeliveredPerSecond = float64(r.Delivered-inLoad) / r.WaitSeconds
	}
	slices.Sort(lat)
	q := func(x float64) float64 {
		d := lat.Quantile(x)
		if d == never {
			return -1
		}
		return ms(d)
	}
	r.P50Ms, r.P99Ms, r.P999Ms, r.MaxMs = q(0.5), q(0.99), q(0.999), q(1)
	r.KeptUp = keptUp(r)
	if stats != nil {
		st, err := stats.Read(ctx, run.Label, r.Accepted, r.Delivered)
		if err != nil {
			r.notes = append(r.notes, run.Label+": reading pg_stat_statements failed: "+err.Error())
		}
		r.Statements = st
	}
	return r, f.StderrTail(), nil
}

// backlogTrend fits a line to the backlog samples of the load's second half
// (the first half includes the ramp to a steady in-flight count) and calls
// the backlog growing when it rises by more than 2% of the accepted rate per
// second: delivery then falls behind intake.
func backlogTrend(samples []backlogSnapshot, start, end time.Time, rate float64) (slope float64, growing bool) {
	mid := start.Add(end.Sub(start) / 2)
	var n, sx, sy, sxx, sxy float64
	for _, s := range samples {
		if s.n < 0 || s.at.Before(mid) || s.at.After(end) {
			continue
		}
		x, y := s.at.Sub(mid).Seconds(), float64(s.n)
		n++
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	if n < 2 || n*sxx-sx*sx == 0 {
		return 0, false
	}
	slope = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	return slope, slope > 0.02*rate
}
