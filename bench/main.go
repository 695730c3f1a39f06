// Command bench measures formd's submission throughput and latency on
// loopback and compares them with what the same PostgreSQL server does for a
// plain single-row INSERT (pgbench) in the same run.
//
//	cd bench && go run . [-concurrency 1,8,32,64,128] [-step 5s] [-rate 1000] [-open 10s] [-delivery 60s] [-delivery-rate 0] [-archive-rounds 2] [-preload] [-keep-up]
//	cd bench && go run . -relay-only [-concurrency 1,8,32] [-step 4s] [-profile DIR]
//
// It builds formd's ./cmd/formd, starts it on a fresh database (pgtest.NewDatabase,
// which honours FORMD_TEST_DATABASE_URL), sets up a verified form through the
// real API, then runs an open loop at a fixed rate (latency measured from each
// request's scheduled time), a closed loop at rising concurrency, the same
// steps against the naive peer (./naivepeer: one INSERT per request) and
// again without delivery workers (intake with delivery on ÷ off, and ÷ the
// naive peer at each step), a
// delivery phase (on a second fresh database, an open loop at half the peak
// with formd sending to an in-process SMTP server: delivered ÷ accepted and
// accept-to-SMTP-received latency), a relay phase (on a fresh database,
// formd and then the relay peer, ./relaypeer, a Go relay that mails each
// submission within the request and stores nothing, in the same steps,
// both mailing to one in-process SMTP server: formd ÷ relay accepted/s, and
// formd's CPU per delivered submission, from a step's start until its last
// mail arrived), an archive phase (on a fresh
// database, steps at the peak with the form's archive off and on in turn:
// intake with it on ÷ off), a spam phase (the same on another, with the
// form's spam check against the test rspamd off and tag), and pgbench.
// It reports formd's peak resident memory (VmHWM) at the end of each phase
// and, where pg_stat_statements is preloaded (-private-pg starts a throwaway
// cluster that does), PostgreSQL's statement time per submission. With
// -preload it repeats the open loop and the peak step on a database filled
// with a year of history first, and compares the latencies with the empty one's.
// -relay-only runs the relay phase alone, without pgbench; -profile DIR
// saves formd's CPU and allocation profiles of its steps at 1 and 8 clients.
// With -keep-up it searches, by bisection over delivery-phase runs on fresh
// databases, for the highest open-loop rate at which deliveries keep up.
// The report goes to stdout and, as JSON, to bench/results/latest.json.
// The exit code is 0 whenever the measurement ran, whether or not the goals
// were met; it is non-zero only when the run could not be set up, was
// interrupted, or the pgbench baseline measured nothing (with -relay-only:
// the relay phase measured nothing).
//
// formd's per-IP limit (FORMD_SUBMIT_RATE) would answer one load-generating
// address with 429s, so by default formd trusts 127.0.0.1 as a proxy and the
// requests spread over -client-ips addresses in X-Forwarded-For.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

func main() {
	code := run()
	os.Exit(code)
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

	if opts.PrivatePG {
		pg, err := usePrivatePG(ctx, opts)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: FAILED:", err)
			return 1
		}
		// Stopped on every return, interrupt and -deadline included: both
		// cancel ctx, and measure returns.
		defer pg.Stop()
	}

	rep := &Report{StartedAt: time.Now(), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(),
		LoadAvgStart: loadAvg(), Options: opts, Warnings: []string{}, FormdMemory: []MemoryUse{}, Statements: []*StatementReport{}}
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
		bench, err := benchModule(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: locating the module:", err)
			return 1
		}
		out = filepath.Join(bench, "results", "latest.json")
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
