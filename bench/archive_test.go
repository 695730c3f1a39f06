package main

import (
	"strings"
	"testing"
	"time"
)

// round is an archive step that archived as its setting says, with
// statement time us per accepted submission (none for 0).
func round(on bool, rate, us float64) ArchiveRound {
	r := ArchiveRound{Archive: on, Step: &StepResult{AcceptedPerSecond: rate, Counts: Counts{Sent: 1000, Accepted: 1000}}}
	if on {
		r.ArchivedRows = 1000
	}
	if us > 0 {
		r.Statements = &StatementReport{Accepted: 1000, PerAcceptedUs: us}
	}
	return r
}

func TestTheArchiveRatioIsTheMedianOnOverTheMedianOff(t *testing.T) {
	// A slow outlier in each setting does not move its median.
	a := &ArchiveResult{Rounds: []ArchiveRound{
		round(false, 1000, 100), round(true, 960, 110), round(false, 400, 300),
		round(true, 990, 105), round(false, 1020, 90), round(true, 100, 500),
	}}
	summarizeArchive(a)
	if a.OffAcceptedPerSecond != 1000 || a.OnAcceptedPerSecond != 960 || a.Ratio != 0.96 {
		t.Fatalf("off %v, on %v, ratio %v; want 1000, 960 and 0.96", a.OffAcceptedPerSecond, a.OnAcceptedPerSecond, a.Ratio)
	}
	if a.OffStatementUs != 100 || a.OnStatementUs != 110 {
		t.Fatalf("statement µs off %v, on %v; want 100 and 110", a.OffStatementUs, a.OnStatementUs)
	}
	if !a.Verified {
		t.Fatal("every step archived as set, yet the phase is not verified")
	}
	if g := archiveGoal(a, 0.95); !g.Known || !g.Pass || g.Value != 0.96 {
		t.Fatalf("0.96 against >= 0.95 must pass: %+v", g)
	}
	if g := archiveGoal(a, 0.97); !g.Known || g.Pass {
		t.Fatalf("0.96 against >= 0.97 must fail: %+v", g)
	}
}

func TestAStepWithoutStatementTimeLeavesItsSettingsMedianOut(t *testing.T) {
	a := &ArchiveResult{Rounds: []ArchiveRound{round(false, 1000, 100), round(true, 1000, 0), round(false, 1000, 100), round(true, 1000, 120)}}
	summarizeArchive(a)
	if a.OffStatementUs != 100 || a.OnStatementUs != 0 {
		t.Fatalf("statement µs off %v, on %v; want 100 and none", a.OffStatementUs, a.OnStatementUs)
	}
}

func TestTheArchiveGoalIsUnknownUnlessEveryStepArchivedAsItsSettingSays(t *testing.T) {
	for name, spoil := range map[string]func(r []ArchiveRound){
		"an off step archived":        func(r []ArchiveRound) { r[0].ArchivedRows = 5 },
		"an on step archived nothing": func(r []ArchiveRound) { r[1].ArchivedRows = 0 },
		"an on step archived fewer":   func(r []ArchiveRound) { r[3].ArchivedRows = 999 },
		"a count failed":              func(r []ArchiveRound) { r[2].ArchivedRows = -1 },
		"a step did not run":          func(r []ArchiveRound) { r[2].Step = nil },
	} {
		a := &ArchiveResult{Rounds: []ArchiveRound{round(false, 1000, 0), round(true, 1000, 0), round(false, 1000, 0), round(true, 1000, 0)}}
		spoil(a.Rounds)
		summarizeArchive(a)
		if g := archiveGoal(a, 0.95); a.Verified || g.Known || g.Pass {
			t.Errorf("%s: verified %v, goal %+v; want unverified and unknown", name, a.Verified, g)
		}
	}
	if g := archiveGoal(nil, 0.95); g.Known || g.Pass {
		t.Fatalf("no archive phase must leave the goal unknown: %+v", g)
	}
	if g := archiveGoal(&ArchiveResult{}, 0.95); g.Known || g.Pass {
		t.Fatalf("an archive phase without steps must leave the goal unknown: %+v", g)
	}
}

func TestTheArchiveLinesGiveBothMediansAndTheVerdict(t *testing.T) {
	a := &ArchiveResult{Concurrency: 64, ConcurrencySource: "the closed loop's peak", RetentionDays: 30, SettleSeconds: 2.5,
		Rounds: []ArchiveRound{round(false, 2000, 100), round(true, 1800, 120), round(false, 2000, 100), round(true, 1800, 120)}}
	summarizeArchive(a)
	out := strings.Join(archiveLines(a, Options{Step: 5 * time.Second, GoalArchive: 0.95}), "\n")
	for _, want := range []string{
		"c=64 = the closed loop's peak; 4 steps of 5s each",
		"2. archive on     1,800 accepted/s",
		"medians: off 2,000, on 1,800 accepted/s; on ÷ off 0.900; statement time per accepted submission off 100 µs, on 120 µs; goal on ÷ off >= 0.95: NOT met",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("printed:\n%s\nwant a line with:\n%s", out, want)
		}
	}
}

func TestTheArchiveFlagsNeedTwoRoundsAndAPositiveGoal(t *testing.T) {
	ok := Options{ArchiveRounds: 2, GoalArchive: 0.95}
	if err := archiveFlagsError(ok); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	for name, o := range map[string]Options{
		"one round":            {ArchiveRounds: 1, GoalArchive: 0.95},
		"negative concurrency": {ArchiveRounds: 2, ArchiveConcurrency: -1, GoalArchive: 0.95},
		"no goal":              {ArchiveRounds: 2},
	} {
		if err := archiveFlagsError(o); err == nil {
			t.Errorf("%s was taken; want an error", name)
		}
	}
	if got := settingDeadline(5*time.Second, 2); got != 4*(5*time.Second+settingSettle)+settingPhaseAllowance {
		t.Fatalf("deadline allowance %s", got)
	}
}
