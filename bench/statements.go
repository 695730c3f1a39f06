package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// benchMarker tags the benchmark's own queries (backlog counts, the
// statistics themselves) so the statement report leaves them out.
const benchMarker = "/* formd-bench */"

// statementTopN is how many statements the JSON report keeps, the
// statements run inside functions among them; statementPrintN how many the
// printed report lists.
const (
	statementTopN   = 24
	statementPrintN = 8
)

// statementQueryChars is how much of a statement's text the report keeps.
const statementQueryChars = 100

// StatementReport is PostgreSQL's statement time (pg_stat_statements) in
// formd's database over one phase, per submission.
type StatementReport struct {
	Phase string `json:"phase"`
	// Accepted and Delivered are the phase's submissions (Delivered: -1 when
	// the phase does not count deliveries).
	Accepted  int `json:"accepted"`
	Delivered int `json:"delivered"`
	// TotalMs and Calls are over the top-level statements: a statement run
	// inside a function (pg_stat_statements.track=all) is already in its
	// caller's time. TotalMs counts planning too, where the server tracks it
	// (pg_stat_statements.track_planning, on in -private-pg): a statement
	// PostgreSQL plans afresh on each call costs its CPU as much as running it.
	TotalMs float64 `json:"totalExecMs"`
	// PlanMs is the part of TotalMs spent planning.
	PlanMs float64 `json:"planMs"`
	Calls  int64   `json:"calls"`
	// WALBytes is the WAL the top-level statements wrote (commit records,
	// written by no statement, are not in it); WALPerAccepted is per
	// submission. Zero where the server does not track it (before 13).
	WALBytes       int64   `json:"walBytes"`
	WALPerAccepted float64 `json:"walBytesPerAccepted"`
	// WALFullPages counts the full-page images in that WAL: a page's first
	// change after a checkpoint is logged whole.
	WALFullPages int64 `json:"walFullPages"`
	// PerAcceptedUs and PerDeliveredUs are TotalMs per submission, in µs (0: no submissions).
	PerAcceptedUs  float64        `json:"perAcceptedMicros"`
	PerDeliveredUs float64        `json:"perDeliveredMicros,omitempty"`
	Top            []StatementRow `json:"top"`
}

// StatementRow is one normalized statement of a StatementReport.
type StatementRow struct {
	Query string `json:"query"`
	Calls int64  `json:"calls"`
	// TotalMs is execution and planning; PlanMs the planning in Plans plans.
	TotalMs float64 `json:"totalMs"`
	PlanMs  float64 `json:"planMs"`
	Plans   int64   `json:"plans"`
	MeanUs  float64 `json:"meanMicros"`
	// Share is TotalMs ÷ the report's TotalMs.
	Share float64 `json:"share"`
	// Nested statements ran inside a function; their time is part of the caller's too.
	Nested bool `json:"nested,omitempty"`
	// WALBytes is the WAL the statement wrote (a nested one's is in its
	// caller's too); WALFullPages the full-page images in it.
	WALBytes     int64 `json:"walBytes"`
	WALFullPages int64 `json:"walFullPages"`
}

// summarizeStatements builds the report of a phase from pg_stat_statements'
// rows (delivered < 0: the phase does not count deliveries).
func summarizeStatements(phase string, rows []StatementRow, accepted, delivered int) *StatementReport {
	r := &StatementReport{Phase: phase, Accepted: accepted, Delivered: delivered, Top: []StatementRow{}}
	for _, row := range rows {
		if !row.Nested {
			r.TotalMs += row.TotalMs
			r.PlanMs += row.PlanMs
			r.Calls += row.Calls
			r.WALBytes += row.WALBytes
			r.WALFullPages += row.WALFullPages
		}
	}
	if accepted > 0 {
		r.PerAcceptedUs = r.TotalMs * 1000 / float64(accepted)
		r.WALPerAccepted = float64(r.WALBytes) / float64(accepted)
	}
	if delivered > 0 {
		r.PerDeliveredUs = r.TotalMs * 1000 / float64(delivered)
	}
	sorted := append([]StatementRow(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].TotalMs > sorted[j].TotalMs })
	for _, row := range sorted[:min(statementTopN, len(sorted))] {
		row.Query = shortQuery(row.Query, statementQueryChars)
		if row.Calls > 0 {
			row.MeanUs = row.TotalMs * 1000 / float64(row.Calls)
		}
		if r.TotalMs > 0 {
			row.Share = row.TotalMs / r.TotalMs
		}
		r.Top = append(r.Top, row)
	}
	return r
}

// shortQuery puts a statement on one line and cuts it to at most n characters.
func shortQuery(q string, n int) string {
	q = strings.Join(strings.Fields(q), " ")
	if r := []rune(q); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return q
}

// statementLines is the human-readable form of a report, one line each.
func statementLines(r *StatementReport, goalUs float64) []string {
	verdict := func(us float64) string {
		if us <= goalUs {
			return "met"
		}
		return "NOT met"
	}
	head := fmt.Sprintf("PostgreSQL statement time during the %s: %.1f ms (planning %.1f ms of it) in %d top-level statements = %.0f µs per accepted submission (%d)",
		r.Phase, r.TotalMs, r.PlanMs, r.Calls, r.PerAcceptedUs, r.Accepted)
	if r.Delivered >= 0 {
		head += fmt.Sprintf(", %.0f µs per delivered (%d)", r.PerDeliveredUs, r.Delivered)
	}
	goal := fmt.Sprintf("; goal <= %.0f µs per accepted", goalUs)
	if r.Delivered >= 0 {
		goal += " and delivered"
	}
	switch {
	case r.Accepted == 0:
		goal += ": unknown (nothing accepted)"
	case r.Delivered >= 0:
		goal += ": " + verdict(max(r.PerAcceptedUs, r.PerDeliveredUs))
		if r.Delivered == 0 {
			goal += " (nothing delivered)"
		}
	default:
		goal += ": " + verdict(r.PerAcceptedUs)
	}
	if r.WALBytes > 0 && r.Accepted > 0 {
		goal += fmt.Sprintf("; WAL written by these statements %.2f KiB per accepted (%.2f full-page images per accepted)",
			r.WALPerAccepted/1024, float64(r.WALFullPages)/float64(r.Accepted))
	}
	lines := []string{head + goal}
	for _, row := range r.Top[:min(statementPrintN, len(r.Top))] {
		nested := ""
		if row.Nested {
			nested = " (inside a function)"
		}
		planned := ""
		if row.Plans > 0 {
			planned = fmt.Sprintf(", planned %d times (%.1f ms)", row.Plans, row.PlanMs)
		}
		lines = append(lines, fmt.Sprintf("  %5.1f%% %9.1f ms %8d calls %9.1f µs/call  %s%s%s",
			100*row.Share, row.TotalMs, row.Calls, row.MeanUs, row.Query, nested, planned))
	}
	return lines
}

// statementStats reads pg_stat_statements for one database over its own connection.
type statementStats struct {
	conn *pgx.Conn
	db   uint32
	// toplevel says whether the view has the toplevel column (PostgreSQL 14+),
	// planning whether it has the planning columns and wal_bytes (PostgreSQL 13+).
	toplevel, planning bool
}

// openStatementStats enables pg_stat_statements in dbURL's database; the
// error says why statement time cannot be measured on this server.
func openStatementStats(ctx context.Context, dbURL string) (*statementStats, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	s := &statementStats{conn: conn}
	fail := func(err error) (*statementStats, error) {
		s.Close()
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			return nil, errors.New(pgErr.Message)
		}
		return nil, err
	}
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
		return fail(err)
	}
	if err := conn.QueryRow(ctx, "SELECT "+benchMarker+` oid,
		EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'pg_stat_statements'::regclass AND attname = 'toplevel'),
		EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'pg_stat_statements'::regclass AND attname = 'total_plan_time')
		FROM pg_database WHERE datname = current_database()`).Scan(&s.db, &s.toplevel, &s.planning); err != nil {
		return fail(err)
	}
	// The view answers only when the library is preloaded.
	if _, err := conn.Exec(ctx, "SELECT "+benchMarker+" count(*) FROM pg_stat_statements"); err != nil {
		return fail(err)
	}
	return s, nil
}

// Reset forgets the statistics of this database (not the server's others).
func (s *statementStats) Reset(ctx context.Context) error {
	_, err := s.conn.Exec(ctx, "SELECT "+benchMarker+" pg_stat_statements_reset(0, $1, 0)", s.db)
	return err
}

// Read reports the statements since the last Reset (delivered < 0: the
// phase does not count deliveries).
func (s *statementStats) Read(ctx context.Context, phase string, accepted, delivered int) (*StatementReport, error) {
	toplevel := "true"
	if s.toplevel {
		toplevel = "toplevel"
	}
	planning := "0::float8, 0::int8, 0::int8, 0::int8"
	if s.planning {
		planning = "total_plan_time, plans, wal_bytes::int8, wal_fpi"
	}
	rows, err := s.conn.Query(ctx, "SELECT "+benchMarker+" query, calls, total_exec_time, "+planning+", "+toplevel+
		" FROM pg_stat_statements WHERE dbid = $1 AND query NOT LIKE '%formd-bench%'", s.db)
	if err != nil {
		return nil, err
	}
	var stats []StatementRow
	for rows.Next() {
		var row StatementRow
		var top bool
		var execMs float64
		if err := rows.Scan(&row.Query, &row.Calls, &execMs, &row.PlanMs, &row.Plans, &row.WALBytes, &row.WALFullPages, &top); err != nil {
			rows.Close()
			return nil, err
		}
		row.TotalMs = execMs + row.PlanMs
		row.Nested = !top
		stats = append(stats, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return summarizeStatements(phase, stats, accepted, delivered), nil
}

// Close ends the connection; it is safe to call twice and on nil.
func (s *statementStats) Close() {
	if s != nil && s.conn != nil {
		_ = s.conn.Close(context.Background())
		s.conn = nil
	}
}
