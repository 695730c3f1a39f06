package main

import (
	"strings"
	"testing"
	"time"
)

// spamRound is a spam step that checked as its mode says: every accepted
// submission answered ham with the check on, nothing asked with it off.
func spamRound(on bool, rate float64) SpamRound {
	r := SpamRound{On: on, Step: &StepResult{AcceptedPerSecond: rate, P50Ms: 1, P99Ms: 5, Counts: Counts{Sent: 1000, Accepted: 1000}},
		Checks: map[string]int{"ham": 0, "spam": 0, "unavailable": 0}}
	if on {
		r.Checks["ham"] = 1000
	}
	return r
}

func TestTheSpamRatioIsTheMedianOnOverOffAndCountsTheOnStepsChecks(t *testing.T) {
	s := &SpamResult{Rounds: []SpamRound{spamRound(false, 1000), spamRound(true, 850), spamRound(true, 800), spamRound(false, 1000)}}
	summarizeSpam(s)
	if s.OffAcceptedPerSecond != 1000 || s.OnAcceptedPerSecond != 825 || s.Ratio != 0.825 {
		t.Fatalf("off %v, on %v, ratio %v; want 1000, 825 and 0.825", s.OffAcceptedPerSecond, s.OnAcceptedPerSecond, s.Ratio)
	}
	if !s.Verified || s.ChecksOn["ham"] != 2000 || s.ChecksOn["unavailable"] != 0 {
		t.Fatalf("verified %v, checks on %v; want verified and 2000 ham", s.Verified, s.ChecksOn)
	}
	if g := spamGoal(s, 0.80); !g.Known || !g.Pass {
		t.Fatalf("0.825 against >= 0.80 must pass: %+v", g)
	}
	if g := spamGoal(s, 0.90); !g.Known || g.Pass {
		t.Fatalf("0.825 against >= 0.90 must fail: %+v", g)
	}
}

func TestTheSpamGoalIsUnknownUnlessEveryStepCheckedAsItsModeSays(t *testing.T) {
	for name, spoil := range map[string]func(r []SpamRound){
		"rspamd unavailable in every on step": func(r []SpamRound) {
			r[1].Checks = map[string]int{"unavailable": 1000}
			r[2].Checks = map[string]int{"unavailable": 1000}
		},
		"one check unavailable":       func(r []SpamRound) { r[1].Checks["unavailable"] = 1 },
		"fewer checks than accepted":  func(r []SpamRound) { r[2].Checks["ham"] = 999 },
		"an off step asked rspamd":    func(r []SpamRound) { r[0].Checks["ham"] = 3 },
		"an on step accepted nothing": func(r []SpamRound) { r[1].Step.Accepted, r[1].Checks["ham"] = 0, 0 },
		"metrics not read":            func(r []SpamRound) { r[3].Checks = nil },
		"a step did not run":          func(r []SpamRound) { r[2].Step = nil },
	} {
		s := &SpamResult{Rounds: []SpamRound{spamRound(false, 1000), spamRound(true, 900), spamRound(true, 900), spamRound(false, 1000)}}
		spoil(s.Rounds)
		summarizeSpam(s)
		if g := spamGoal(s, 0.80); s.Verified || g.Known || g.Pass {
			t.Errorf("%s: verified %v, goal %+v; want unverified and unknown", name, s.Verified, g)
		}
	}
	// Spam answers are answers: GTUBE-like content does not spoil the phase.
	r := spamRound(true, 900)
	r.Checks["ham"], r.Checks["spam"] = 400, 600
	if !spamCheckedAsSet(r) {
		t.Fatal("ham and spam answers for every accepted submission must match mode tag")
	}
	if g := spamGoal(nil, 0.80); g.Known || g.Pass {
		t.Fatalf("no spam phase must leave the goal unknown: %+v", g)
	}
}

func TestTheSpamChecksAreReadByOutcomeFromTheMetrics(t *testing.T) {
	text := `# HELP formd_spam_checks_total Spam checks by outcome.
# TYPE formd_spam_checks_total counter
formd_spam_checks_total{outcome="ham"} 1234
formd_spam_checks_total{outcome="spam"} 5
formd_spam_checks_total{outcome="unavailable"} 0
formd_spam_checks_total_created{outcome="ham"} 1.7e+09
formd_submissions_total{outcome="ham"} 99
`
	got, err := parseSpamChecks(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got["ham"] != 1234 || got["spam"] != 5 || got["unavailable"] != 0 {
		t.Fatalf("read %v", got)
	}
	if _, err := parseSpamChecks(strings.NewReader(`formd_spam_checks_total{outcome="ham"} x` + "\n")); err == nil {
		t.Fatal("a sample that is not a number was taken")
	}
}

func TestTheSpamLinesFlagAPhaseWhereRspamdNeverAnswered(t *testing.T) {
	o := Options{Step: 4 * time.Second, GoalSpam: 0.80}
	s := &SpamResult{Concurrency: 8, ConcurrencySource: "the closed loop's peak", RspamdURL: "http://127.0.0.1:11433", SettleSeconds: 2.5,
		Rounds: []SpamRound{spamRound(false, 1000), spamRound(true, 700), spamRound(true, 700), spamRound(false, 1000)}}
	summarizeSpam(s)
	out := strings.Join(spamLines(s, "", o), "\n")
	for _, want := range []string{"2. check on", "checks: ham 1000, spam 0, unavailable 0", "on ÷ off 0.700", "goal on ÷ off >= 0.80: NOT met"} {
		if !strings.Contains(out, want) {
			t.Errorf("printed:\n%s\nwant:\n%s", out, want)
		}
	}
	for _, r := range s.Rounds[1:3] {
		r.Checks["ham"], r.Checks["unavailable"] = 0, 1000
	}
	summarizeSpam(s)
	if out := strings.Join(spamLines(s, "", o), "\n"); !strings.Contains(out, "UNKNOWN") || !strings.Contains(out, "unavailable 2000") {
		t.Errorf("every check unavailable, printed:\n%s", out)
	}
	if got := spamLines(nil, "no test rspamd: x", o); len(got) != 1 || !strings.Contains(got[0], "skipped: no test rspamd") {
		t.Errorf("skipped phase printed %q", got)
	}
	if got := spamLines(nil, "", o); got != nil {
		t.Errorf("a phase not asked for printed %q", got)
	}
}
