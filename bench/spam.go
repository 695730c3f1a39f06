package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// spamRounds is how many steps of each spam mode the spam phase runs.
const spamRounds = 2

// spamCheckOutcomes are the outcome labels of formd's
// formd_spam_checks_total (adapters/prometheus).
var spamCheckOutcomes = []string{"ham", "spam", "unavailable"}

// SpamResult is the spam phase: intake of one form on one formd that knows
// the test rspamd, in closed-loop steps with the form's spam mode off (formd
// never asks rspamd) and tag (one classification per submission before the
// commit), alternating as the archive phase's.
type SpamResult struct {
	Concurrency       int     `json:"concurrency"`
	ConcurrencySource string  `json:"concurrencySource"`
	RspamdURL         string  `json:"rspamdURL"`
	StepSeconds       float64 `json:"stepSeconds"`
	SettleSeconds     float64 `json:"settleSeconds"`
	// Rounds are the steps in the order they ran.
	Rounds []SpamRound `json:"rounds"`
	// OffAcceptedPerSecond and OnAcceptedPerSecond are the medians of each
	// mode's steps; Ratio is on ÷ off (0 when either is missing).
	OffAcceptedPerSecond float64 `json:"offAcceptedPerSecond"`
	OnAcceptedPerSecond  float64 `json:"onAcceptedPerSecond"`
	Ratio                float64 `json:"ratio"`
	OffStatementUs       float64 `json:"offStatementMicrosPerAccepted,omitempty"`
	OnStatementUs        float64 `json:"onStatementMicrosPerAccepted,omitempty"`
	// ChecksOn sums the on steps' checks by outcome (nil: not read).
	ChecksOn map[string]int `json:"spamChecksOn,omitempty"`
	// Verified says every step checked as its mode says: no check with the
	// check off, one answered check (ham or spam) per accepted submission and
	// none unavailable with it on.
	Verified bool       `json:"spamVerified"`
	Memory   *MemoryUse `json:"-"`
	notes    []string
}

// SpamRound is one step of the spam phase.
type SpamRound struct {
	// On is mode tag; off is mode off.
	On         bool             `json:"on"`
	Step       *StepResult      `json:"step"`
	Statements *StatementReport `json:"statements,omitempty"`
	// Checks is the step's rise of formd_spam_checks_total by outcome (nil:
	// /metrics could not be read).
	Checks map[string]int `json:"spamChecks,omitempty"`
}

// spamCheckedAsSet says whether a step's checks match its mode.
func spamCheckedAsSet(r SpamRound) bool {
	if r.Checks == nil || r.Step == nil {
		return false
	}
	answered := r.Checks["ham"] + r.Checks["spam"]
	if !r.On {
		return answered+r.Checks["unavailable"] == 0
	}
	return r.Step.Accepted > 0 && r.Checks["unavailable"] == 0 && answered >= r.Step.Accepted
}

// summarizeSpam computes s's medians, on steps' checks and verification.
func summarizeSpam(s *SpamResult) {
	steps := make([]settingStep, len(s.Rounds))
	s.Verified = len(s.Rounds) > 0
	s.ChecksOn = nil
	for i, r := range s.Rounds {
		steps[i] = settingStep{On: r.On, Step: r.Step, Statements: r.Statements}
		if !spamCheckedAsSet(r) {
			s.Verified = false
		}
		if r.On && r.Checks != nil {
			if s.ChecksOn == nil {
				s.ChecksOn = map[string]int{}
			}
			for k, v := range r.Checks {
				s.ChecksOn[k] += v
			}
		}
	}
	m := summarizeSteps(steps)
	s.Verified = s.Verified && m.Complete
	s.OffAcceptedPerSecond, s.OnAcceptedPerSecond, s.Ratio = m.OffRate, m.OnRate, m.Ratio
	s.OffStatementUs, s.OnStatementUs = m.OffStatementUs, m.OnStatementUs
}

// spamGoal judges "the spam check costs intake little": median accepted/s
// with the check on ÷ off at least goal; unknown unless every step checked
// as its mode says (a run where rspamd never answered measures nothing).
func spamGoal(s *SpamResult, goal float64) Goal {
	g := Goal{Name: "intake with the spam check (rspamd) on ÷ off (medians)", Target: fmt.Sprintf(">= %.2f", goal)}
	if s == nil {
		return g
	}
	g.Value = s.Ratio
	g.Known = s.Ratio > 0 && s.Verified
	g.Pass = g.Known && s.Ratio >= goal
	return g
}

// rspamdURL is the test rspamd's scanner: FORMD_TEST_RSPAMD_URL, else what
// scripts/ensure-rspamd.sh (which starts it) prints.
func rspamdURL(ctx context.Context) (string, error) {
	if u := os.Getenv("FORMD_TEST_RSPAMD_URL"); u != "" {
		return u, nil
	}
	bench, err := benchModule(ctx)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bench, "..", "scripts", "ensure-rspamd.sh"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("scripts/ensure-rspamd.sh: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	for line := range strings.Lines(string(out)) {
		if u, ok := strings.CutPrefix(strings.TrimSpace(line), "FORMD_TEST_RSPAMD_URL="); ok && u != "" {
			return u, nil
		}
	}
	return "", errors.New("scripts/ensure-rspamd.sh printed no FORMD_TEST_RSPAMD_URL")
}

// measureSpam runs the spam phase and adds it to the report; without a
// test rspamd the phase is skipped with a reason, and a failure is a
// warning, since the other figures stand.
func measureSpam(ctx context.Context, bin, tmp string, env []string, opts Options, rep *Report) error {
	c, source := settingConcurrency(0, "", rep)
	if c == 0 {
		rep.SpamSkipped = "formd accepted nothing in the closed loop"
		return nil
	}
	url, err := rspamdURL(ctx)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		rep.SpamSkipped = "no test rspamd: " + err.Error()
		return nil
	}
	s, tail, err := runSpam(ctx, bin, tmp, env, opts, c, url, rep)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		warnPhaseFailed(rep, "spam", err, tail)
		return nil
	}
	s.ConcurrencySource = source
	rep.Spam = s
	addMemory(rep, s.Memory)
	rep.Warnings = append(rep.Warnings, s.notes...)
	return nil
}

// runSpam runs the spam phase as a setting phase at concurrency c, on a
// formd that asks the rspamd at url with the default timeout and serves
// /metrics, read before and after each step.
func runSpam(ctx context.Context, bin, tmp string, env []string, opts Options, c int, url string, rep *Report) (*SpamResult, string, error) {
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	metricsURL := "http://127.0.0.1:" + port + "/metrics"
	var before map[string]int
	checks := map[*StepResult]map[string]int{}
	p := settingPhase{
		name: "spam phase", setting: "spam check",
		env: []string{"FORMD_RSPAMD_URL=" + url, "FORMD_METRICS_ADDR=127.0.0.1:" + port},
		set: setSpamMode,
		beforeStep: func(ctx context.Context, _ *phaseFormd, _ *pgx.Conn) {
			before, _ = spamChecks(ctx, metricsURL)
		},
		afterStep: func(ctx context.Context, _ *phaseFormd, _ *pgx.Conn, s settingStep) []string {
			after, err := spamChecks(ctx, metricsURL)
			if err != nil || before == nil {
				return []string{fmt.Sprintf("spam phase: formd's /metrics not read (%v): the step's checks are unknown", err)}
			}
			r := SpamRound{On: s.On, Step: s.Step, Checks: map[string]int{}}
			for _, o := range spamCheckOutcomes {
				r.Checks[o] = after[o] - before[o]
			}
			checks[s.Step] = r.Checks
			if !spamCheckedAsSet(r) {
				return []string{fmt.Sprintf("spam phase, spam check %s: %d accepted submissions, checks %s; the step does not measure its setting",
					onOff(s.On), s.Step.Accepted, checksSummary(r.Checks))}
			}
			return nil
		},
	}
	steps, notes, mem, tail, err := runSettingPhase(ctx, bin, tmp, env, opts, c, spamRounds, p, rep)
	if err != nil {
		return nil, tail, err
	}
	s := &SpamResult{Concurrency: c, RspamdURL: url, StepSeconds: opts.Step.Seconds(), SettleSeconds: settingSettle.Seconds(), Memory: mem, notes: notes}
	for _, st := range steps {
		s.Rounds = append(s.Rounds, SpamRound{On: st.On, Step: st.Step, Statements: st.Statements, Checks: checks[st.Step]})
	}
	summarizeSpam(s)
	return s, tail, nil
}

// setSpamMode sets the form's spam mode to tag (on) or off through the
// API, and checks that formd says it is so.
func setSpamMode(ctx context.Context, f *Formd, form benchForm, on bool) error {
	mode := "off"
	if on {
		mode = "tag"
	}
	var out struct {
		Form struct {
			Spam struct {
				Mode string `json:"mode"`
			} `json:"spam"`
		} `json:"form"`
	}
	if err := f.call(ctx, http.MethodPatch, "/v1/forms/"+form.ID, form.Credential, map[string]any{"spam": map[string]any{"mode": mode}}, http.StatusOK, &out); err != nil {
		return fmt.Errorf("setting the spam mode %s: %w", mode, err)
	}
	if out.Form.Spam.Mode != mode {
		return fmt.Errorf("setting the spam mode %s: PATCH /v1/forms/%s answered spam.mode %q", mode, form.ID, out.Form.Spam.Mode)
	}
	return nil
}

// spamChecks reads formd_spam_checks_total by outcome from formd's /metrics.
func spamChecks(ctx context.Context, url string) (map[string]int, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	return parseSpamChecks(resp.Body)
}

var outcomeLabel = regexp.MustCompile(`outcome="([^"]*)"`)

// parseSpamChecks reads formd_spam_checks_total's samples from a Prometheus
// text exposition; an outcome without a sample counts 0.
func parseSpamChecks(r io.Reader) (map[string]int, error) {
	counts := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "formd_spam_checks_total{") {
			continue
		}
		m := outcomeLabel.FindStringSubmatch(line)
		fields := strings.Fields(line)
		if m == nil || len(fields) < 2 {
			continue
		}
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			return nil, fmt.Errorf("formd_spam_checks_total: %q: %w", line, err)
		}
		counts[m[1]] = int(v)
	}
	return counts, sc.Err()
}

// checksSummary is "ham 10, spam 0, unavailable 2", or "unknown".
func checksSummary(c map[string]int) string {
	if c == nil {
		return "unknown"
	}
	parts := make([]string, 0, len(spamCheckOutcomes))
	for _, o := range spamCheckOutcomes {
		parts = append(parts, fmt.Sprintf("%s %d", o, c[o]))
	}
	return strings.Join(parts, ", ")
}

// spamLines is the human-readable form of the spam phase, or the reason it
// was skipped.
func spamLines(s *SpamResult, skipped string, o Options) []string {
	if s == nil {
		if skipped == "" {
			return nil
		}
		return []string{"spam check off vs on: skipped: " + skipped}
	}
	lines := []string{fmt.Sprintf("spam check off vs on (fresh database, one formd asking rspamd at %s, default FORMD_RSPAMD_TIMEOUT; c=%d = %s; %d steps of %s each, mode off first, alternating with tag; %.1f s of unreported load after each switch; submitter IPs private (10.x.x.x) or loopback, which rspamd does not look up in reverse DNS):",
		s.RspamdURL, s.Concurrency, s.ConcurrencySource, len(s.Rounds), o.Step, s.SettleSeconds)}
	for i, r := range s.Rounds {
		st := r.Step
		stmt := ""
		if r.Statements != nil {
			stmt = fmt.Sprintf("  statements %.0f µs/accepted", r.Statements.PerAcceptedUs)
		}
		lines = append(lines, fmt.Sprintf("  %d. check %-3s %8s accepted/s  p50 %6.2f ms  p99 %7.2f ms  checks: %s%s  %s  errors: %s",
			i+1, onOff(r.On), thousands(st.AcceptedPerSecond), st.P50Ms, st.P99Ms, checksSummary(r.Checks), stmt, st.CPU, st.errorSummary()))
	}
	summary := fmt.Sprintf("  medians: off %s, on %s accepted/s; on ÷ off %.3f", thousands(s.OffAcceptedPerSecond), thousands(s.OnAcceptedPerSecond), s.Ratio)
	if s.OffStatementUs > 0 && s.OnStatementUs > 0 {
		summary += fmt.Sprintf("; statement time per accepted submission off %.0f µs, on %.0f µs", s.OffStatementUs, s.OnStatementUs)
	} else {
		summary += "; statement time: not measured"
	}
	summary += "; checks during the on steps: " + checksSummary(s.ChecksOn)
	verdict := "met"
	switch g := spamGoal(s, o.GoalSpam); {
	case !g.Known:
		verdict = "UNKNOWN (a step's checks do not match its mode, e.g. rspamd unavailable, or /metrics not read)"
	case !g.Pass:
		verdict = "NOT met"
	}
	return append(lines, summary+fmt.Sprintf("; goal on ÷ off >= %.2f: %s", o.GoalSpam, verdict))
}
