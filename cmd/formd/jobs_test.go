package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
)

// failingStores is every sweep's store, failing.
type failingStores struct{}

var errStore = errors.New("store away")

func (failingStores) Heartbeat(context.Context, time.Time) error { return errStore }
func (failingStores) ReleaseDeadClaims(context.Context, time.Time) (int64, error) {
	return 0, errStore
}
func (failingStores) PruneMessages(context.Context, string, time.Duration) (int64, error) {
	return 0, errStore
}
func (failingStores) ShredExpiredPayloads(context.Context, time.Time) (int, error) {
	return 0, errStore
}
func (failingStores) ShredArchivedPayloads(context.Context, time.Time, int) (int, error) {
	return 0, errStore
}
func (failingStores) ShredExpiredHeld(context.Context, time.Time, int) (int, error) {
	return 0, errStore
}
func (failingStores) ChainPending(context.Context, int) (int, error) { return 0, errStore }
func (failingStores) Extend(context.Context, int, func(uint64, []byte) (string, error)) (application.Checkpoint, bool, error) {
	return application.Checkpoint{}, false, errStore
}
func (failingStores) VerifyCheckpoints(context.Context, func(string) (uint64, []byte, error), func(application.ChainFinding)) (application.CheckpointTally, error) {
	return application.CheckpointTally{}, errStore
}
func (failingStores) StreamEvidence(context.Context, string) (application.AuditEvidence, error) {
	return application.AuditEvidence{}, errStore
}
func (failingStores) SignCheckpoint(uint64, []byte) (string, error)         { return "", errStore }
func (failingStores) OpenCheckpoint(string) (uint64, []byte, error)         { return 0, nil, errStore }
func (failingStores) VerifierKey() string                                   { return "" }
func (failingStores) Publish(context.Context, application.Checkpoint) error { return errStore }
func (failingStores) VerifyChains(context.Context, func(application.ChainFinding)) (application.ChainTally, error) {
	return application.ChainTally{}, errStore
}
func (failingStores) PruneIdempotencyKeys(context.Context) (int64, error) { return 0, errStore }
func (failingStores) PruneAutoresponderReservations(context.Context) (int64, error) {
	return 0, errStore
}
func (failingStores) PruneSpentChallenges(context.Context, time.Time) (int64, error) {
	return 0, errStore
}
func (failingStores) PruneThrottles(context.Context, time.Time) error { return errStore }

type fixedClock struct{}

func (fixedClock) Now() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// failingSweeps are the sweeps on failingStores; the upload and test inbox
// sweeps are left out (nil).
func failingSweeps() *application.Sweeps {
	s := failingStores{}
	return &application.Sweeps{
		Heartbeat:                      application.NewHeartbeatHandler(s, fixedClock{}),
		ReleaseDeadClaims:              application.NewReleaseDeadClaimsHandler(s, fixedClock{}),
		PruneMessages:                  application.NewPruneMessagesHandler(s, application.UnreadMessageRetention(time.Hour)),
		ShredExpiredPayloads:           application.NewShredExpiredPayloadsHandler(s, fixedClock{}),
		ShredArchivedPayloads:          application.NewShredArchivedPayloadsHandler(s, fixedClock{}),
		ShredHeldSpam:                  application.NewShredHeldSpamHandler(s, fixedClock{}),
		ChainEvents:                    application.NewChainEventsHandler(s),
		CheckpointAudit:                application.NewCheckpointAuditHandler(s, s, s),
		PruneIdempotencyKeys:           application.NewPruneIdempotencyKeysHandler(s),
		PruneAutoresponderReservations: application.NewPruneAutoresponderReservationsHandler(s),
		PruneSpentChallenges:           application.NewPruneSpentChallengesHandler(s, fixedClock{}),
		PruneThrottles:                 application.NewPruneThrottlesHandler(s, fixedClock{}),
	}
}

func TestPeriodicJobsRunEachSweepAtItsInterval(t *testing.T) {
	var got []string
	for _, j := range periodicJobs(failingSweeps(), 42*time.Second) {
		got = append(got, fmt.Sprintf("%s every %s", j.name, j.every))
	}
	want := []string{
		"delivery claims every " + postgres.HeartbeatInterval.String(),
		"acknowledged messages every 1m0s",
		"audit chain every 1m0s",
		"expired records every 1h0m0s",
		"uploads and test inbox every 42s", // FORMD_UPLOAD_SWEEP_INTERVAL
	}
	if !slices.Equal(got, want) {
		t.Errorf("jobs\n%q\nwant\n%q", got, want)
	}
}

func TestPeriodicJobsWarnOfEachFailedSweep(t *testing.T) {
	var every time.Duration
	r, logs := runnerUnderTest(&handTicker{}, &every)
	for _, job := range periodicJobs(failingSweeps(), time.Minute) {
		if job.name == "uploads and test inbox" {
			continue // unchanged application handlers with suites of their own
		}
		for _, task := range job.tasks {
			r.runTask(context.Background(), task)
		}
	}
	var got []string
	for _, l := range logs.lines(t) {
		if l["level"] != "WARN" || l["err"] != errStore.Error() {
			t.Errorf("line %v: want a warning with the error", l)
		}
		line := l["msg"].(string)
		if topic, ok := l["topic"]; ok {
			line += " " + topic.(string)
		}
		got = append(got, line)
	}
	want := []string{"delivery heartbeat", "releasing claims of stopped processes"}
	for _, topic := range application.Topics {
		want = append(want, "pruning acknowledged messages "+topic)
	}
	want = append(want, "chaining audit events", "checkpointing the audit log", "shredding the payloads of failed deliveries past their retention",
		"shredding archived submissions past their retention", "shredding held spam past its hold", "pruning idempotency keys",
		"pruning autoresponder reservations", "pruning spent proof-of-work challenges",
		"pruning password reset requests and throttle keys")
	if !slices.Equal(got, want) {
		t.Errorf("warnings\n%q\nwant\n%q", got, want)
	}
}
