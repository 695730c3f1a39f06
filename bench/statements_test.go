package main

import (
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The rows pg_stat_statements might give after a phase: the function call is
// top-level, the statement inside it is nested and must not count twice.
func phaseRows() []StatementRow {
	return []StatementRow{
		{Query: "COMMIT", Calls: 500, TotalMs: 60},
		{Query: "INSERT INTO events (stream_id, version, data)\n\t\tVALUES ($1, $2, $3)", Calls: 1000, TotalMs: 30, WALBytes: 1536000, WALFullPages: 150},
		{Query: "SELECT formd_consume_uploads($1)", Calls: 500, TotalMs: 10, WALBytes: 512000},
		{Query: "UPDATE upload_reservations SET consumed_at = now() WHERE key = $1", Calls: 500, TotalMs: 8, Nested: true, WALBytes: 512000, WALFullPages: 40},
	}
}

func TestSummarizeStatementsCountsTopLevelTimePerSubmission(t *testing.T) {
	r := summarizeStatements("delivery phase", phaseRows(), 1000, 800)
	if !near(r.TotalMs, 100) || r.Calls != 2000 {
		t.Fatalf("total %v ms in %d calls, want 100 ms in 2000 (nested time is in its caller's)", r.TotalMs, r.Calls)
	}
	if !near(r.PerAcceptedUs, 100) || !near(r.PerDeliveredUs, 125) {
		t.Fatalf("per accepted %v µs, per delivered %v µs; want 100 and 125", r.PerAcceptedUs, r.PerDeliveredUs)
	}
	if r.WALBytes != 2048000 || !near(r.WALPerAccepted, 2048) {
		t.Fatalf("WAL %d bytes, %v per accepted; want 2048000 and 2048 (a nested statement's WAL is in its caller's)", r.WALBytes, r.WALPerAccepted)
	}
	if len(r.Top) != 4 || r.Top[0].Query != "COMMIT" || !near(r.Top[0].Share, 0.6) || !near(r.Top[0].MeanUs, 120) {
		t.Fatalf("top statement %+v, want COMMIT with 60%% share and 120 µs per call", r.Top[0])
	}
	if r.Top[1].Query != "INSERT INTO events (stream_id, version, data) VALUES ($1, $2, $3)" {
		t.Fatalf("query text not put on one line: %q", r.Top[1].Query)
	}
	if !r.Top[3].Nested {
		t.Fatal("the nested statement lost its mark")
	}
}

func TestSummarizeStatementsKeepsTheTopByTotalTime(t *testing.T) {
	var rows []StatementRow
	for i := range statementTopN + 4 {
		rows = append(rows, StatementRow{Query: strings.Repeat("x", i+1), Calls: 1, TotalMs: float64(i)})
	}
	r := summarizeStatements("open loop", rows, 10, -1)
	if len(r.Top) != statementTopN || r.Top[0].TotalMs != statementTopN+3 || r.Top[statementTopN-1].TotalMs != 4 {
		t.Fatalf("top = %+v, want the %d slowest, slowest first", r.Top, statementTopN)
	}
	if lines := statementLines(r, 150); len(lines) != 1+statementPrintN {
		t.Fatalf("printed %d lines, want the head and the top %d", len(lines), statementPrintN)
	}
	if r.PerDeliveredUs != 0 {
		t.Fatal("per delivered computed for a phase that does not count deliveries")
	}
}

func TestSummarizeStatementsWithNothingAcceptedDividesByNothing(t *testing.T) {
	r := summarizeStatements("open loop", nil, 0, -1)
	if r.PerAcceptedUs != 0 || r.Top == nil || len(r.Top) != 0 {
		t.Fatalf("got %+v", r)
	}
}

func TestShortQueryCutsLongStatementsToTheLimit(t *testing.T) {
	long := "UPDATE deliveries SET next_attempt_at = $1 WHERE id IN (SELECT id FROM deliveries WHERE status IN ($2, $3) ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED)"
	got := shortQuery(long, 100)
	if n := len([]rune(got)); n != 100 || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "UPDATE deliveries SET") {
		t.Fatalf("shortQuery = %q (%d runes), want 100 runes ending in …", got, n)
	}
	if shortQuery("COMMIT", 100) != "COMMIT" {
		t.Fatal("a short statement was changed")
	}
}

func TestStatementLinesJudgeTheGoal(t *testing.T) {
	lines := statementLines(summarizeStatements("delivery phase", phaseRows(), 1000, 800), 150)
	if len(lines) != 5 {
		t.Fatalf("%d lines, want a summary and 4 statements:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for _, want := range []string{"during the delivery phase", "100 µs per accepted submission (1000)",
		"125 µs per delivered (800)", "goal <= 150 µs per accepted and delivered: met",
		"WAL written by these statements 2.00 KiB per accepted (0.15 full-page images per accepted)"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("summary %q lacks %q", lines[0], want)
		}
	}
	if !strings.Contains(lines[1], "60.0%") || !strings.Contains(lines[1], "120.0 µs/call") || !strings.Contains(lines[1], "COMMIT") {
		t.Errorf("first statement line %q", lines[1])
	}
	if !strings.Contains(lines[4], "(inside a function)") {
		t.Errorf("nested statement line %q is not marked", lines[4])
	}

	over := statementLines(summarizeStatements("open loop", phaseRows(), 500, -1), 150)
	if !strings.Contains(over[0], "200 µs per accepted submission (500); goal <= 150 µs per accepted: NOT met") ||
		strings.Contains(over[0], "delivered") {
		t.Errorf("open-loop summary %q", over[0])
	}
	none := statementLines(summarizeStatements("open loop", nil, 0, -1), 150)
	if !strings.Contains(none[0], "unknown (nothing accepted)") {
		t.Errorf("empty summary %q", none[0])
	}
}

func TestStatementGoalsUseTheWorseOfAcceptedAndDelivered(t *testing.T) {
	goals := statementGoals([]*StatementReport{
		summarizeStatements("open loop", phaseRows(), 1000, -1),
		summarizeStatements("delivery phase", phaseRows(), 1000, 500),
	}, 150)
	if len(goals) != 2 || !goals[0].Pass || goals[0].Value != 100 {
		t.Fatalf("open-loop goal %+v, want 100 µs passing", goals[0])
	}
	if goals[1].Pass || goals[1].Value != 200 || !goals[1].Known {
		t.Fatalf("delivery goal %+v, want 200 µs (per delivered) failing", goals[1])
	}
}

// Planning is PostgreSQL's work too: a statement planned afresh on each call
// (a custom plan) costs as much CPU as one that runs longer. Its time counts
// in the phase's total and the line says how often it was planned.
func TestSummarizeStatementsCountsPlanningInTheTotal(t *testing.T) {
	rows := []StatementRow{
		{Query: "SELECT * FROM claim($1)", Calls: 100, TotalMs: 30, PlanMs: 10, Plans: 100},
		{Query: "INSERT INTO events VALUES ($1)", Calls: 100, TotalMs: 20},
		{Query: "UPDATE deliveries SET x = $1", Calls: 100, TotalMs: 5, PlanMs: 4, Plans: 100, Nested: true},
	}
	r := summarizeStatements("open loop", rows, 100, -1)
	if !near(r.TotalMs, 50) || !near(r.PlanMs, 10) || !near(r.PerAcceptedUs, 500) {
		t.Fatalf("total %v ms, planning %v ms, %v µs per accepted; want 50, 10 (a nested statement's planning is in its caller's) and 500",
			r.TotalMs, r.PlanMs, r.PerAcceptedUs)
	}
	lines := statementLines(r, 150)
	if !strings.Contains(lines[0], "planning 10.0 ms of it") || !strings.Contains(lines[1], "planned 100 times (10.0 ms)") {
		t.Fatalf("lines do not show the planning:\n%s", strings.Join(lines, "\n"))
	}
	if strings.Contains(lines[2], "planned") {
		t.Fatalf("a statement never planned says it was: %s", lines[2])
	}
}
