package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// settingSettle is the unreported load after each switch of a form's
// setting: formd's form cache (adapters/postgres) keeps a form for up to
// 2 s, and a submission judged by the stale form is judged again on a fresh
// read, so the first seconds after a switch do more work than either
// setting does.
const settingSettle = 2500 * time.Millisecond

// settingPhaseAllowance is what a setting phase's fresh database, account
// set-up, formd start and warm-up take besides its steps, for -deadline.
const settingPhaseAllowance = 30 * time.Second

// settingPhase is one "a form's setting off vs on" phase: closed-loop steps
// of one form on one formd and one fresh database, alternating the setting
// in settingOrder, so drift of the machine falls on both settings alike.
type settingPhase struct {
	// name is the phase's name in progress lines, warnings and statement
	// labels ("archive phase"); setting names the setting ("archive").
	name, setting string
	// env is added to formd's settings for this phase.
	env []string
	// set switches the form's setting through the API.
	set func(ctx context.Context, f *Formd, form benchForm, on bool) error
	// beforeStep and afterStep bracket each measured step; afterStep
	// returns the notes the step deserves (nil: none).
	beforeStep func(ctx context.Context, pf *phaseFormd, conn *pgx.Conn)
	afterStep  func(ctx context.Context, pf *phaseFormd, conn *pgx.Conn, step settingStep) []string
}

// settingStep is one measured step of a setting phase.
type settingStep struct {
	On         bool
	Step       *StepResult
	Statements *StatementReport
}

// settingOrder is the setting of each step, rounds of each: off, on, on,
// off, off, on … (ABBA), so that a drift of the machine over the phase
// weighs on both settings alike rather than always on the second.
func settingOrder(rounds int) []bool {
	order := make([]bool, 0, 2*rounds)
	for i := range rounds {
		on := i%2 == 1
		order = append(order, on, !on)
	}
	return order
}

// median is the middle of xs (the mean of the two middle ones for an even
// count), 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// settingMedians are a setting phase's medians of each setting.
type settingMedians struct {
	// OffRate and OnRate are the median accepted/s; Ratio is on ÷ off (0
	// when either is missing).
	OffRate, OnRate, Ratio float64
	// OffStatementUs and OnStatementUs are the median statement time per
	// accepted submission (0: not measured in every step of the setting).
	OffStatementUs, OnStatementUs float64
	// Complete says every step ran.
	Complete bool
}

// summarizeSteps computes the medians of steps.
func summarizeSteps(steps []settingStep) settingMedians {
	rates := map[bool][]float64{}
	stmts := map[bool][]float64{}
	counts := map[bool]int{}
	m := settingMedians{Complete: len(steps) > 0}
	for _, s := range steps {
		if s.Step == nil {
			m.Complete = false
			continue
		}
		counts[s.On]++
		rates[s.On] = append(rates[s.On], s.Step.AcceptedPerSecond)
		if s.Statements != nil && s.Statements.Accepted > 0 {
			stmts[s.On] = append(stmts[s.On], s.Statements.PerAcceptedUs)
		}
	}
	m.OffRate, m.OnRate = median(rates[false]), median(rates[true])
	m.Ratio = ratio(m.OnRate, m.OffRate)
	if len(stmts[false]) == counts[false] {
		m.OffStatementUs = median(stmts[false])
	}
	if len(stmts[true]) == counts[true] {
		m.OnStatementUs = median(stmts[true])
	}
	return m
}

// settingDeadline is what a setting phase adds to the default -deadline.
func settingDeadline(step time.Duration, rounds int) time.Duration {
	return time.Duration(2*rounds)*(step+settingSettle) + settingPhaseAllowance
}

// runSettingPhase sets up the bench's form on a fresh database, starts
// formd on it as the closed loop's (with p.env), and runs rounds steps of
// each setting at concurrency c in settingOrder, switching the setting with
// p.set and settling before each step. It returns the steps, the notes for
// the report's warnings, formd's memory and, on failure, formd's log tail.
func runSettingPhase(ctx context.Context, bin, tmp string, env []string, opts Options, c, rounds int, p settingPhase, rep *Report) ([]settingStep, []string, *MemoryUse, string, error) {
	dir, dbURL, drop, err := phaseDatabase(ctx, tmp, p.setting, p.name)
	if err != nil {
		return nil, nil, nil, "", err
	}
	defer drop()
	pf, tail, err := startPhaseFormd(ctx, bin, dir, dbURL, append(slices.Clone(env), p.env...), opts, c, p.name)
	if err != nil {
		return nil, nil, nil, tail, err
	}
	defer pf.stop()
	f := pf.f
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, nil, nil, "", err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var stats *statementStats
	if rep.StatementsUnavailable == "" {
		if stats, err = openStatementStats(ctx, dbURL); err != nil {
			rep.Warnings = append(rep.Warnings, p.name+": no statement time: "+err.Error())
		}
		defer stats.Close()
	}

	var steps []settingStep
	var notes []string
	order := settingOrder(rounds)
	for i, on := range order {
		if err := p.set(ctx, f, pf.form, on); err != nil {
			return nil, nil, nil, f.StderrTail(), err
		}
		pf.load.closedStep(ctx, c, settingSettle, opts.StepRequests)
		progress(fmt.Sprintf("%s: step %d of %d, %s %s, c=%d for %s", p.name, i+1, len(order), p.setting, onOff(on), c, opts.Step))
		if p.beforeStep != nil {
			p.beforeStep(ctx, pf, conn)
		}
		stats = resetStatements(ctx, stats, rep)
		cpu := markCPU(f.PID())
		st := pf.load.closedStep(ctx, c, opts.Step, opts.StepRequests)
		if ctx.Err() != nil {
			return nil, nil, nil, f.StderrTail(), ctx.Err()
		}
		st.CPU = cpuSince(cpu, f.PID())
		s := settingStep{On: on, Step: st}
		if stats != nil {
			if s.Statements, err = stats.Read(ctx, p.setting+" "+onOff(on)+" step", st.Accepted, -1); err != nil {
				notes = append(notes, fmt.Sprintf("reading pg_stat_statements after a %s step failed: %v", p.name, err))
			}
		}
		if st.Errors() > 0 {
			notes = append(notes, fmt.Sprintf("%s, %s %s: %d of %d requests not accepted: %s",
				p.name, p.setting, onOff(on), st.Errors(), st.Sent, st.errorSummary()))
		}
		if p.afterStep != nil {
			notes = append(notes, p.afterStep(ctx, pf, conn, s)...)
		}
		steps = append(steps, s)
	}
	mem := formdMemory(p.name, f.PID())
	if f.Exited() {
		return nil, nil, nil, f.StderrTail(), fmt.Errorf("formd exited during the %s", p.name)
	}
	return steps, notes, mem, f.StderrTail(), nil
}

// settingConcurrency is a setting phase's concurrency: the flag's value, or
// formd's peak in the closed loop; 0 when neither is known.
func settingConcurrency(flagValue int, flagName string, rep *Report) (int, string) {
	if flagValue > 0 {
		return flagValue, flagName
	}
	return rep.ClosedLoop.AtConcurrency, "the closed loop's peak"
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// warnPhaseFailed reports a phase that failed as warnings, with the tail of
// its formd's log when there is one: a failed phase is not fatal, the other
// figures stand.
func warnPhaseFailed(rep *Report, phase string, err error, tail string) {
	rep.Warnings = append(rep.Warnings, phase+" phase failed: "+err.Error())
	if tail != "" {
		rep.Warnings = append(rep.Warnings, phase+" phase formd's log (tail): "+tail)
	}
}
