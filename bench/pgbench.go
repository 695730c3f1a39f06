package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// PGSettings are the server settings that decide what a commit costs.
type PGSettings struct {
	Version           string `json:"version"`
	SynchronousCommit string `json:"synchronousCommit"`
	Fsync             string `json:"fsync"`
	WalSyncMethod     string `json:"walSyncMethod"`
	CommitDelay       string `json:"commitDelay"`
	MaxConnections    int    `json:"maxConnections"`
}

// readPGSettings reads PGSettings through the benchmark's database.
func readPGSettings(ctx context.Context, dbURL string) (PGSettings, error) {
	var s PGSettings
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return s, err
	}
	defer conn.Close(context.Background())
	var maxConn string
	for _, q := range []struct {
		name string
		dst  *string
	}{{"server_version", &s.Version}, {"synchronous_commit", &s.SynchronousCommit}, {"fsync", &s.Fsync},
		{"wal_sync_method", &s.WalSyncMethod}, {"commit_delay", &s.CommitDelay}, {"max_connections", &maxConn}} {
		if err := conn.QueryRow(ctx, "SHOW "+q.name).Scan(q.dst); err != nil {
			return s, fmt.Errorf("SHOW %s: %w", q.name, err)
		}
	}
	s.MaxConnections, _ = strconv.Atoi(maxConn)
	return s, nil
}

// PhaseDeliveries compares what formd accepted in a phase with the mail it
// delivered meanwhile. A submission keeps its payload row until every one of
// its deliveries is final, so submission_payloads counts the backlog.
type PhaseDeliveries struct {
	Phase              string  `json:"phase"`
	Seconds            float64 `json:"seconds"`
	BacklogBefore      int     `json:"backlogBefore"`
	Accepted           int     `json:"accepted"`
	BacklogAfter       int     `json:"backlogAfter"`
	AcceptedPerSecond  float64 `json:"acceptedPerSecond"`
	DeliveredPerSecond float64 `json:"deliveredPerSecond"`
}

// backlogMonitor watches formd's delivery backlog over its own connection.
type backlogMonitor struct {
	conn *pgx.Conn
}

// backlogSnapshot is the backlog at one moment (-1: unknown).
type backlogSnapshot struct {
	at time.Time
	n  int
}

func newBacklogMonitor(ctx context.Context, dbURL string) (*backlogMonitor, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	return &backlogMonitor{conn: conn}, nil
}

// Snapshot counts the submissions whose mail is not delivered yet.
func (m *backlogMonitor) Snapshot(ctx context.Context) backlogSnapshot {
	s := backlogSnapshot{at: time.Now(), n: -1}
	if m.conn != nil {
		_ = m.conn.QueryRow(ctx, "SELECT "+benchMarker+" count(*) FROM submission_payloads").Scan(&s.n)
	}
	return s
}

// Phase ends a phase that started at before and accepted that many submissions.
func (m *backlogMonitor) Phase(ctx context.Context, name string, before backlogSnapshot, accepted int) PhaseDeliveries {
	after := m.Snapshot(ctx)
	secs := after.at.Sub(before.at).Seconds()
	p := PhaseDeliveries{Phase: name, Seconds: secs, BacklogBefore: before.n, Accepted: accepted, BacklogAfter: after.n,
		AcceptedPerSecond: float64(accepted) / secs}
	if before.n >= 0 && after.n >= 0 {
		p.DeliveredPerSecond = float64(before.n+accepted-after.n) / secs
	}
	return p
}

// Close ends the monitor's connection; it is safe to call twice.
func (m *backlogMonitor) Close() {
	if m.conn != nil {
		_ = m.conn.Close(context.Background())
		m.conn = nil
	}
}

// PgbenchRun is one pgbench measurement.
type PgbenchRun struct {
	RequestedConcurrency int     `json:"requestedConcurrency"`
	Concurrency          int     `json:"concurrency"`
	Threads              int     `json:"threads"`
	Seconds              int     `json:"seconds"`
	TPS                  float64 `json:"tps"`
	LatencyAvgMs         float64 `json:"latencyAvgMs"`
	Failed               string  `json:"failedTransactions,omitempty"`
	Note                 string  `json:"note,omitempty"`
	// Error says why this run measured nothing.
	Error string `json:"error,omitempty"`
}

func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// benchScript is the single-row INSERT pgbench repeats; its payload is the
// same submission formd receives.
var benchScript = `INSERT INTO bench_rows (payload) VALUES ('{"name":"Ada Lovelace","email":"ada@example.com","message":"` +
	benchMessage + `"}');` + "\n"

var (
	tpsRE     = regexp.MustCompile(`(?m)^tps = ([0-9.]+)`)
	latencyRE = regexp.MustCompile(`(?m)^latency average = ([0-9.]+) ms`)
	failedRE  = regexp.MustCompile(`(?m)^number of failed transactions: (.*)$`)
)

// runPgbench creates bench_rows in dbURL's database and runs pgbench for
// secs seconds at each concurrency, capped by the free connection slots. A
// run that measures nothing carries its Error; the error returned means
// pgbench could not be prepared at all.
func runPgbench(ctx context.Context, dbURL, dir string, concurrency []int, secs int) ([]PgbenchRun, error) {
	if _, err := exec.LookPath("pgbench"); err != nil {
		return nil, fmt.Errorf("pgbench is not installed: %w", err)
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS bench_rows (id bigserial PRIMARY KEY,
		payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("create bench_rows: %w", err)
	}
	script := filepath.Join(dir, "insert.sql")
	if err := os.WriteFile(script, []byte(benchScript), 0o644); err != nil {
		return nil, err
	}
	var runs []PgbenchRun
	for _, c := range concurrency {
		r, err := pgbenchOnce(ctx, conn, dbURL, script, c, secs, 4)
		if err == nil && r.Error != "" && strings.Contains(r.Error, "too many clients") {
			// Other sessions took the free slots meanwhile: once more, leaving room.
			r, err = pgbenchOnce(ctx, conn, dbURL, script, c, secs, 20)
		}
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// pgbenchOnce runs pgbench at concurrency c, or at fewer clients when the
// server's free connection slots, less margin, are fewer.
func pgbenchOnce(ctx context.Context, conn *pgx.Conn, dbURL, script string, c, secs, margin int) (PgbenchRun, error) {
	var maxConn, used int
	if err := conn.QueryRow(ctx, `SELECT current_setting('max_connections')::int,
		(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int`).Scan(&maxConn, &used); err != nil {
		return PgbenchRun{}, err
	}
	r := PgbenchRun{RequestedConcurrency: c, Concurrency: c, Seconds: secs}
	if free := maxConn - used - margin; c > free {
		r.Concurrency = max(1, free)
		r.Note = fmt.Sprintf("pgbench at c=%d ran with %d clients: max_connections=%d and %d connections are in use",
			c, r.Concurrency, maxConn, used)
	}
	r.Threads = min(2, r.Concurrency)
	progress(fmt.Sprintf("pgbench: c=%d -j %d -T %d", r.Concurrency, r.Threads, secs))
	cmd := exec.CommandContext(ctx, "pgbench", "-n", "-c", strconv.Itoa(r.Concurrency), "-j", strconv.Itoa(r.Threads),
		"-T", strconv.Itoa(secs), "-f", script, dbURL)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	if m := tpsRE.FindSubmatch(out); err == nil && m != nil {
		r.TPS, _ = strconv.ParseFloat(string(m[1]), 64)
	} else {
		r.Error = fmt.Sprintf("pgbench -c %d measured nothing (%v): %s", r.Concurrency, err, lastLines(out, 3))
	}
	if m := latencyRE.FindSubmatch(out); m != nil {
		r.LatencyAvgMs, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	if m := failedRE.FindSubmatch(out); m != nil && !strings.HasPrefix(string(m[1]), "0 ") {
		r.Failed = string(m[1])
	}
	return r, nil
}

// PgbenchAtRate is pgbench's single-row insert at the open loop's rate: the
// latency a bare durable insert gets on this machine at that load, measured
// like the open loop (from each transaction's scheduled start), so formd's
// open-loop p99 can be read against the machine's own floor.
type PgbenchAtRate struct {
	Rate    float64 `json:"rate"`
	Clients int     `json:"clients"`
	Seconds int     `json:"seconds"`
	Count   int     `json:"transactions"`
	P50Ms   float64 `json:"p50Ms"`
	P99Ms   float64 `json:"p99Ms"`
	P999Ms  float64 `json:"p999Ms"`
	// Error says why this run measured nothing.
	Error string `json:"error,omitempty"`
}

// pgbenchRateClients is how many pgbench clients carry the rated run: enough
// that a slow commit does not hold up the schedule, few enough to leave
// connection slots.
const pgbenchRateClients = 32

// runPgbenchAtRate runs pgbench -R rate for secs seconds with a
// per-transaction log in dir and reads the latencies from it. It runs
// runPgbench's script (dir/insert.sql, on the bench_rows it creates).
func runPgbenchAtRate(ctx context.Context, dbURL, dir string, rate float64, secs int) PgbenchAtRate {
	r := PgbenchAtRate{Rate: rate, Clients: pgbenchRateClients, Seconds: secs}
	logDir, err := os.MkdirTemp(dir, "pgbench-rate-")
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer os.RemoveAll(logDir)
	script := filepath.Join(dir, "insert.sql")
	progress(fmt.Sprintf("pgbench: -R %.0f c=%d -T %d, per-transaction log", rate, r.Clients, secs))
	cmd := exec.CommandContext(ctx, "pgbench", "-n", "-c", strconv.Itoa(r.Clients), "-j", "2",
		"-R", strconv.FormatFloat(rate, 'f', 0, 64), "-T", strconv.Itoa(secs), "-l",
		"--log-prefix", filepath.Join(logDir, "tx"), "-f", script, dbURL)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.Error = fmt.Sprintf("pgbench -R %.0f measured nothing (%v): %s", rate, err, lastLines(out, 3))
		return r
	}
	files, _ := filepath.Glob(filepath.Join(logDir, "tx.*"))
	var latencies Histogram
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		latencies = append(latencies, pgbenchLogLatencies(raw)...)
	}
	if len(latencies) == 0 {
		r.Error = "pgbench -R wrote no transaction to its log"
		return r
	}
	r.Count = len(latencies)
	// The open loop's quantiles (Histogram, nearest rank), so the two p99s compare.
	slices.Sort(latencies)
	r.P50Ms, r.P99Ms, r.P999Ms = ms(latencies.Quantile(0.5)), ms(latencies.Quantile(0.99)), ms(latencies.Quantile(0.999))
	return r
}

// pgbenchLogLatencies reads the latency of each transaction in a pgbench -l
// log: "client_id transaction_no time script_no time_epoch time_us
// [schedule_lag]", where time, in µs, runs from the scheduled start when the
// run is rate-limited. Skipped transactions and malformed lines are left out.
func pgbenchLogLatencies(raw []byte) Histogram {
	var out Histogram
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		us, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			continue
		}
		out = append(out, time.Duration(us)*time.Microsecond)
	}
	return out
}
