package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"
)

// archiveRetentionDays is the retention the archive phase turns the archive
// on with: the free plan's longest, which the bench's account may set.
const archiveRetentionDays = 30

// ArchiveResult is the archive phase: intake of one form on one formd and
// one database, in closed-loop steps of the same concurrency and length with
// the form's archive off and on in turn, so drift of the machine falls on
// both settings alike.
type ArchiveResult struct {
	Concurrency int `json:"concurrency"`
	// ConcurrencySource says where Concurrency came from.
	ConcurrencySource string  `json:"concurrencySource"`
	RetentionDays     int     `json:"retentionDays"`
	StepSeconds       float64 `json:"stepSeconds"`
	SettleSeconds     float64 `json:"settleSeconds"`
	// Rounds are the steps in the order they ran.
	Rounds []ArchiveRound `json:"rounds"`
	// OffAcceptedPerSecond and OnAcceptedPerSecond are the medians of each
	// setting's steps; Ratio is on ÷ off (0 when either is missing).
	OffAcceptedPerSecond float64 `json:"offAcceptedPerSecond"`
	OnAcceptedPerSecond  float64 `json:"onAcceptedPerSecond"`
	Ratio                float64 `json:"ratio"`
	// OffStatementUs and OnStatementUs are the medians of each setting's
	// statement time per accepted submission (0: not measured in every step).
	OffStatementUs float64 `json:"offStatementMicrosPerAccepted,omitempty"`
	OnStatementUs  float64 `json:"onStatementMicrosPerAccepted,omitempty"`
	// Verified says every step's payload rows were archived as its setting
	// says: one per accepted submission with the archive on, none with it off.
	Verified bool `json:"archiveVerified"`
	// Memory goes to the report's list of all phases; notes to its warnings.
	Memory *MemoryUse `json:"-"`
	notes  []string
}

// ArchiveRound is one step of the archive phase.
type ArchiveRound struct {
	Archive bool        `json:"archive"`
	Step    *StepResult `json:"step"`
	// ArchivedRows is how many payload rows with an end of retention the
	// step added (-1: unknown).
	ArchivedRows int              `json:"archivedRows"`
	Statements   *StatementReport `json:"statements,omitempty"`
}

// summarizeArchive computes a's medians, ratio and verification from its rounds.
func summarizeArchive(a *ArchiveResult) {
	steps := make([]settingStep, len(a.Rounds))
	a.Verified = len(a.Rounds) > 0
	for i, r := range a.Rounds {
		steps[i] = settingStep{On: r.Archive, Step: r.Step, Statements: r.Statements}
		if !archivedAsSet(r) {
			a.Verified = false
		}
	}
	m := summarizeSteps(steps)
	a.Verified = a.Verified && m.Complete
	a.OffAcceptedPerSecond, a.OnAcceptedPerSecond, a.Ratio = m.OffRate, m.OnRate, m.Ratio
	a.OffStatementUs, a.OnStatementUs = m.OffStatementUs, m.OnStatementUs
}

// archivedAsSet says whether a step's archived rows match its setting: a
// row for each accepted submission with the archive on, none with it off.
func archivedAsSet(r ArchiveRound) bool {
	if r.ArchivedRows < 0 || r.Step == nil {
		return false
	}
	if r.Archive {
		return r.Step.Accepted > 0 && r.ArchivedRows >= r.Step.Accepted
	}
	return r.ArchivedRows == 0
}

// archiveGoal judges "archiving does not slow intake": the median accepted/s
// with the archive on ÷ off at least goal. It is unknown unless both were
// measured and every step archived as its setting says.
func archiveGoal(a *ArchiveResult, goal float64) Goal {
	g := Goal{Name: "intake with the archive on ÷ off (medians)", Target: fmt.Sprintf(">= %.2f", goal)}
	if a == nil {
		return g
	}
	g.Value = a.Ratio
	g.Known = a.Ratio > 0 && a.Verified
	g.Pass = g.Known && a.Ratio >= goal
	return g
}

// measureArchive runs the archive phase and adds it to the report; a failure
// is reported as a warning, since the other figures stand.
func measureArchive(ctx context.Context, bin, tmp string, env []string, opts Options, rep *Report) error {
	c, source := settingConcurrency(opts.ArchiveConcurrency, "-archive-concurrency", rep)
	if c == 0 {
		rep.Warnings = append(rep.Warnings, "formd accepted nothing in the closed loop and -archive-concurrency is not set: no archive phase")
		return nil
	}
	a, tail, err := runArchive(ctx, bin, tmp, env, opts, c, rep)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		warnPhaseFailed(rep, "archive", err, tail)
		return nil
	}
	a.ConcurrencySource = source
	rep.Archive = a
	addMemory(rep, a.Memory)
	rep.Warnings = append(rep.Warnings, a.notes...)
	return nil
}

// runArchive runs the archive phase as a setting phase at concurrency c,
// counting before and after each step the payload rows kept with an end of
// retention.
func runArchive(ctx context.Context, bin, tmp string, env []string, opts Options, c int, rep *Report) (*ArchiveResult, string, error) {
	var before int
	archived := map[*StepResult]int{}
	p := settingPhase{
		name: "archive phase", setting: "archive", set: setArchive,
		beforeStep: func(ctx context.Context, _ *phaseFormd, conn *pgx.Conn) { before = archivedRows(ctx, conn) },
		afterStep: func(ctx context.Context, _ *phaseFormd, conn *pgx.Conn, s settingStep) []string {
			r := ArchiveRound{Archive: s.On, Step: s.Step, ArchivedRows: -1}
			if after := archivedRows(ctx, conn); before >= 0 && after >= 0 {
				r.ArchivedRows = after - before
			}
			archived[s.Step] = r.ArchivedRows
			if !archivedAsSet(r) {
				return []string{fmt.Sprintf("archive phase, archive %s: %d accepted submissions added %d archived payload rows; the step does not measure its setting",
					onOff(s.On), s.Step.Accepted, r.ArchivedRows)}
			}
			return nil
		},
	}
	steps, notes, mem, tail, err := runSettingPhase(ctx, bin, tmp, env, opts, c, opts.ArchiveRounds, p, rep)
	if err != nil {
		return nil, tail, err
	}
	a := &ArchiveResult{Concurrency: c, RetentionDays: archiveRetentionDays, StepSeconds: opts.Step.Seconds(),
		SettleSeconds: settingSettle.Seconds(), Memory: mem, notes: notes}
	for _, s := range steps {
		a.Rounds = append(a.Rounds, ArchiveRound{Archive: s.On, Step: s.Step, ArchivedRows: archived[s.Step], Statements: s.Statements})
	}
	summarizeArchive(a)
	return a, tail, nil
}

// setArchive turns the form's archive on (for archiveRetentionDays) or off
// through the API, and checks that formd says it is so.
func setArchive(ctx context.Context, f *Formd, form benchForm, on bool) error {
	archive := map[string]any{"enabled": on}
	if on {
		archive["retentionDays"] = archiveRetentionDays
	}
	var out struct {
		Form struct {
			Archive struct {
				Enabled bool `json:"enabled"`
			} `json:"archive"`
		} `json:"form"`
	}
	if err := f.call(ctx, http.MethodPatch, "/v1/forms/"+form.ID, form.Credential, map[string]any{"archive": archive}, http.StatusOK, &out); err != nil {
		return fmt.Errorf("turning the archive %s: %w", onOff(on), err)
	}
	if out.Form.Archive.Enabled != on {
		return fmt.Errorf("turning the archive %s: PATCH /v1/forms/%s answered archive.enabled %v", onOff(on), form.ID, out.Form.Archive.Enabled)
	}
	return nil
}

// archivedRows counts the payload rows kept with an end of retention (-1: unknown).
func archivedRows(ctx context.Context, conn *pgx.Conn) int {
	var n int
	if err := conn.QueryRow(ctx, "SELECT "+benchMarker+" count(*) FROM submission_payloads WHERE archived_until IS NOT NULL").Scan(&n); err != nil {
		return -1
	}
	return n
}

// archiveLines is the human-readable form of the archive phase.
func archiveLines(a *ArchiveResult, o Options) []string {
	lines := []string{fmt.Sprintf("archive off vs on (fresh database, one formd, c=%d = %s; %d steps of %s each, off first, alternating; %.1f s of unreported load after each switch; on = %d days):",
		a.Concurrency, a.ConcurrencySource, len(a.Rounds), o.Step, a.SettleSeconds, a.RetentionDays)}
	for i, r := range a.Rounds {
		st := r.Step
		stmt := ""
		if r.Statements != nil {
			stmt = fmt.Sprintf("  statements %.0f µs/accepted", r.Statements.PerAcceptedUs)
		}
		lines = append(lines, fmt.Sprintf("  %d. archive %-3s %8s accepted/s  p50 %6.2f ms  p99 %7.2f ms  archived rows %s%s  %s  errors: %s",
			i+1, onOff(r.Archive), thousands(st.AcceptedPerSecond), st.P50Ms, st.P99Ms, count(r.ArchivedRows), stmt, st.CPU, st.errorSummary()))
	}
	summary := fmt.Sprintf("  medians: off %s, on %s accepted/s; on ÷ off %.3f", thousands(a.OffAcceptedPerSecond), thousands(a.OnAcceptedPerSecond), a.Ratio)
	if a.OffStatementUs > 0 && a.OnStatementUs > 0 {
		summary += fmt.Sprintf("; statement time per accepted submission off %.0f µs, on %.0f µs", a.OffStatementUs, a.OnStatementUs)
	} else {
		summary += "; statement time: not measured"
	}
	verdict := "met"
	switch g := archiveGoal(a, o.GoalArchive); {
	case !g.Known:
		verdict = "unknown"
		if !a.Verified {
			verdict += " (a step's archived rows do not match its setting)"
		}
	case !g.Pass:
		verdict = "NOT met"
	}
	return append(lines, summary+fmt.Sprintf("; goal on ÷ off >= %.2f: %s", o.GoalArchive, verdict))
}

// archiveFlagsError checks the archive phase's flags.
func archiveFlagsError(o Options) error {
	var bad []string
	if o.ArchiveRounds < 2 {
		bad = append(bad, "-archive-rounds must be at least 2")
	}
	if o.ArchiveConcurrency < 0 {
		bad = append(bad, "-archive-concurrency must not be negative")
	}
	if o.GoalArchive <= 0 {
		bad = append(bad, "-goal-archive must be positive")
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}
