package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// relayDrainLimit bounds each wait for a step's mails: a server whose mail
// never comes must not hold the phase up.
const relayDrainLimit = 60 * time.Second

// relayStepAllowance and relayPhaseAllowance are what the phase adds to the
// default -deadline besides its steps: per concurrency, formd's drain
// before and after its step (the relay's mail is in before its 200); per
// phase, the fresh database, the account set-up, two starts, two warm-ups
// and the relay peer's build.
const (
	relayStepAllowance  = 20 * time.Second
	relayPhaseAllowance = 60 * time.Second
)

// relayDeadline is what the relay phase adds to the default -deadline for
// steps of step at that many concurrencies.
func relayDeadline(step time.Duration, concurrencies int) time.Duration {
	return time.Duration(concurrencies)*(2*step+relayStepAllowance) + relayPhaseAllowance
}

// measureRelay runs the relay phase and adds it to the report; a failure
// of the phase is a warning, not the run's end.
func measureRelay(ctx context.Context, bin, tmp string, env []string, opts Options, rep *Report) error {
	progress("relay phase: fresh database, formd and then the relay peer, each mailing every submission to an in-process SMTP server")
	r, tail, err := runRelay(ctx, bin, tmp, env, opts)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		warnPhaseFailed(rep, "relay", err, tail)
		return nil
	}
	rep.Relay = r
	addMemory(rep, r.Memory)
	rep.Warnings = append(rep.Warnings, r.notes...)
	return nil
}

// measureRelayOnly is a -relay-only run: the relay phase and its goals,
// for quick iterations on formd's everyday cost. No pgbench runs, so none
// can measure nothing; a relay phase that measured nothing is the run's
// failure.
func measureRelayOnly(ctx context.Context, bin, tmp string, env []string, opts Options, rep *Report) error {
	if err := measureRelay(ctx, bin, tmp, env, opts, rep); err != nil {
		return err
	}
	if rep.Relay == nil {
		return fmt.Errorf("the relay phase measured nothing: %s", strings.Join(rep.Warnings, "; "))
	}
	rep.FormdPeakRSSMiB = peakMemory(rep.FormdMemory)
	rep.Goals = relayGoals(rep.Relay, opts.GoalRelayCPUUs)
	return nil
}

// runRelay measures formd and then the relay peer at each of
// opts.Concurrency, both mailing every accepted submission to one SMTP sink
// (formd after its 200, through its delivery workers; the relay before
// it). On failure it also returns the log tail of the server that failed.
func runRelay(ctx context.Context, bin, tmp string, env []string, opts Options) (*RelayResult, string, error) {
	dir, dbURL, drop, err := phaseDatabase(ctx, tmp, "relay", "relay phase")
	if err != nil {
		return nil, "", err
	}
	defer drop()
	peerBin, err := buildRelayPeer(ctx, dir)
	if err != nil {
		return nil, "", err
	}
	form, err := setUpForm(ctx, bin, dir, dbURL)
	if err != nil {
		return nil, "", err
	}
	sink, err := startSMTPSink()
	if err != nil {
		return nil, "", err
	}
	defer sink.Close()
	formdEnv := append(slices.Clone(env), sink.formdEnv())
	var prof *profiler
	if opts.Profile != "" {
		port, err := freePort()
		if err != nil {
			return nil, "", err
		}
		if err := os.MkdirAll(opts.Profile, 0o755); err != nil {
			return nil, "", err
		}
		formdEnv = append(formdEnv, "FORMD_DEBUG_ADDR=127.0.0.1:"+port)
		prof = newProfiler("http://127.0.0.1:"+port, opts.Profile, opts.Step)
	}

	r := &RelayResult{StepSeconds: opts.Step.Seconds()}
	f, err := startFormd(bin, dir, dbURL, formdEnv...)
	if err != nil {
		return nil, "", err
	}
	defer f.Stop()
	if err := f.WaitHealthy(ctx, 30*time.Second); err != nil {
		return nil, f.StderrTail(), err
	}
	formd := &relayServer{label: "formd", pid: f.PID(), mails: func() int { n, _ := sink.counts(); return n }}
	load := newLoader(f.URL, form.AccessKey, maxOf(opts.Concurrency), opts.ClientIPs)
	defer load.client.CloseIdleConnections()
	if err := formd.warmUp(ctx, load, opts); err != nil {
		return nil, f.StderrTail(), err
	}
	steps, notes, err := formd.run(ctx, load, opts, prof)
	if err != nil {
		return nil, f.StderrTail(), err
	}
	r.Formd, r.notes = steps, notes
	r.Memory = formdMemory("relay phase", f.PID())
	if f.Exited() {
		return nil, f.StderrTail(), fmt.Errorf("formd exited during the relay phase")
	}
	if prof != nil {
		r.Profiles = prof.files
		r.notes = append(r.notes, prof.notes...)
	}
	// The relay gets the machine to itself, as formd had it.
	load.client.CloseIdleConnections()
	f.Stop()

	peer, err := startPeer(ctx, peerBin, "relay peer", "-smtp", sink.Addr)
	if err != nil {
		return nil, "", err
	}
	defer peer.Stop()
	// The relay's mails carry no formd Message-ID: they are the sink's others.
	relay := &relayServer{label: "relay peer", pid: peer.PID(), mails: func() int { _, n := sink.counts(); return n }}
	rload := newLoader(peer.URL, form.AccessKey, maxOf(opts.Concurrency), opts.ClientIPs)
	defer rload.client.CloseIdleConnections()
	if err := relay.warmUp(ctx, rload, opts); err != nil {
		return nil, peer.StderrTail(), err
	}
	if steps, notes, err = relay.run(ctx, rload, opts, nil); err != nil {
		return nil, peer.StderrTail(), err
	}
	r.Relay = steps
	r.notes = append(r.notes, notes...)
	r.compare()
	return r, "", nil
}

// relayServer is the server (formd or the relay peer) one run of the
// phase's steps measures, and its mails at the sink.
type relayServer struct {
	label string
	pid   int
	// mails is the server's count of mails at the sink so far.
	mails func() int
	// due is what mails reaches once every submission the server accepted
	// so far, probe and warm-up included, has its mail.
	due int
}

// warmUp sends the probe and the warm-up requests, counting the mails they are due.
func (s *relayServer) warmUp(ctx context.Context, load *loader, opts Options) error {
	s.due = s.mails()
	if err := load.probe(ctx); err != nil {
		return fmt.Errorf("live POST /submit (%s, relay phase): %w", s.label, err)
	}
	s.due++
	if opts.WarmupRequests > 0 {
		s.due += load.closedStep(ctx, 8, 10*time.Second, opts.WarmupRequests).Accepted
	}
	return nil
}

// run measures one closed-loop step at each of opts.Concurrency. Before
// each, every mail due so far must have arrived, so a step starts without a
// backlog; after it, the wait for the step's mails is part of its window:
// the server's CPU from the step's start to the last mail, ÷ the mails
// that arrived in that window, is its CPU per delivered submission. prof,
// if not nil, profiles the steps it is for.
func (s *relayServer) run(ctx context.Context, load *loader, opts Options, prof *profiler) ([]*RelayStep, []string, error) {
	var steps []*RelayStep
	var notes []string
	for _, c := range opts.Concurrency {
		if _, ok := waitMails(ctx, s.mails, s.due, relayDrainLimit); !ok && ctx.Err() == nil {
			notes = append(notes, fmt.Sprintf("relay phase, %s: %d mails still missing %s after the step before c=%d",
				s.label, s.due-s.mails(), relayDrainLimit, c))
		}
		progress(fmt.Sprintf("relay phase, %s: c=%d for %s", s.label, c, opts.Step))
		before := s.mails()
		finish := prof.start(ctx, c)
		start := markCPU(s.pid)
		st := load.closedStep(ctx, c, opts.Step, opts.StepRequests)
		if ctx.Err() == nil {
			st.CPU = cpuSince(start, s.pid)
		}
		s.due += st.Accepted
		drain, drained := waitMails(ctx, s.mails, s.due, relayDrainLimit)
		mails := s.mails() - before
		end := markCPU(s.pid)
		finish()
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		rs := &RelayStep{Step: st, Mails: mails, DrainSeconds: drain.Seconds(), Drained: drained}
		if window := end.at.Sub(start.at).Seconds(); window > 0 {
			rs.DeliveredPerSecond = float64(mails) / window
		}
		if start.ok && end.ok {
			rs.ServerCPUPerMailUs = perMailUs(end.formd-start.formd, mails)
			rs.BenchCPUPerMailUs = perMailUs(end.bench-start.bench, mails)
		}
		if st.Errors() > 0 {
			notes = append(notes, fmt.Sprintf("relay phase, %s c=%d: %d of %d requests not accepted: %s",
				s.label, c, st.Errors(), st.Sent, st.errorSummary()))
		}
		if !drained {
			notes = append(notes, fmt.Sprintf("relay phase, %s c=%d: %d mails had not arrived %s after the step",
				s.label, c, s.due-s.mails(), relayDrainLimit))
		}
		steps = append(steps, rs)
	}
	return steps, notes, nil
}

// waitMails waits until mails() reaches due, for at most limit; it returns
// how long it waited and whether every mail came.
func waitMails(ctx context.Context, mails func() int, due int, limit time.Duration) (time.Duration, bool) {
	start := time.Now()
	for mails() < due {
		if ctx.Err() != nil || time.Since(start) >= limit {
			return time.Since(start), false
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond):
		}
	}
	return time.Since(start), true
}

// perMailUs is cpu ÷ mails in µs (0 without mails).
func perMailUs(cpu time.Duration, mails int) float64 {
	if mails <= 0 {
		return 0
	}
	return float64(cpu) / float64(time.Microsecond) / float64(mails)
}

// profiledConcurrencies are the steps -profile profiles formd in: the
// everyday load the CPU goal is about.
var profiledConcurrencies = []int{1, 8}

// profiler saves formd's CPU and allocation profiles of some steps from
// its debug server (FORMD_DEBUG_ADDR, net/http/pprof).
type profiler struct {
	url, dir string
	seconds  int
	client   *http.Client
	// files are the profiles written; notes say which could not be.
	files, notes []string
}

func newProfiler(url, dir string, step time.Duration) *profiler {
	secs := profileSeconds(step)
	return &profiler{url: url, dir: dir, seconds: secs, client: &http.Client{Timeout: time.Duration(secs)*time.Second + 30*time.Second}}
}

// profileSeconds is a step's CPU profile length: the step's whole seconds, at least one.
func profileSeconds(step time.Duration) int { return max(1, int(step/time.Second)) }

// start begins a CPU profile beside the step at concurrency c when that
// step is profiled (nothing for a nil p); the func it returns waits for the
// profile, then saves the allocations too.
func (p *profiler) start(ctx context.Context, c int) (finish func()) {
	if p == nil || !slices.Contains(profiledConcurrencies, c) {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.save(ctx, fmt.Sprintf("/debug/pprof/profile?seconds=%d", p.seconds), fmt.Sprintf("formd-c%d.cpu.pprof", c))
	}()
	return func() {
		<-done
		p.save(ctx, "/debug/pprof/allocs", fmt.Sprintf("formd-c%d.allocs.pprof", c))
	}
}

// save writes what path answers to the file name in p.dir.
func (p *profiler) save(ctx context.Context, path, name string) {
	file := filepath.Join(p.dir, name)
	err := func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url+path, nil)
		if err != nil {
			return err
		}
		resp, err := p.client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, b)
		}
		return os.WriteFile(file, b, 0o644)
	}()
	if err != nil {
		p.notes = append(p.notes, "relay phase: profile "+file+": "+err.Error())
		return
	}
	p.files = append(p.files, file)
}
