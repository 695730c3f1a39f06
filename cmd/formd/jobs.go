package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
)

// periodicJobs are the sweeps every formd process runs. Several processes
// may run them at once: each is idempotent.
func periodicJobs(s *application.Sweeps, uploadSweepInterval time.Duration) []periodicJob {
	return []periodicJob{
		// The heartbeat keeps other processes' hands off this process's
		// claimed deliveries; releasing the claims of processes whose
		// heartbeat stopped (they died) sends their deliveries within
		// seconds rather than after their lease.
		{name: "delivery claims", every: postgres.HeartbeatInterval, untilLeave: true, tasks: []task{
			{run: noCount(s.Heartbeat.Handle), failed: "delivery heartbeat"},
			{run: s.ReleaseDeadClaims.Handle, failed: "releasing claims of stopped processes",
				done: "released deliveries claimed by a process that stopped", level: slog.LevelInfo},
		}},
		// Under load a topic gains millions of messages an hour: an hourly
		// prune made one large burst of deletes, each minute's share is a
		// few short chunks.
		{name: "acknowledged messages", every: time.Minute, tasks: pruneEveryTopic(s.PruneMessages)},
		// Events an older formd stored unchained (during an upgrade, or
		// before the chain existed) are chained within a minute.
		{name: "audit chain", every: time.Minute, tasks: []task{
			{run: s.ChainEvents.Handle, failed: "chaining audit events", done: "chained audit events stored unchained", level: slog.LevelInfo},
			{run: s.CheckpointAudit.Handle, failed: "checkpointing the audit log", done: "signed audit checkpoints", level: slog.LevelDebug},
		}},
		{name: "expired records", every: time.Hour, tasks: []task{
			{run: s.ShredExpiredPayloads.Handle, failed: "shredding the payloads of failed deliveries past their retention",
				done: "shredded the payloads of failed deliveries past their retention", level: slog.LevelInfo},
			{run: s.ShredArchivedPayloads.Handle, failed: "shredding archived submissions past their retention",
				done: "shredded archived submissions past their retention", level: slog.LevelInfo},
			{run: s.ShredHeldSpam.Handle, failed: "shredding held spam past its hold",
				done: "shredded held spam past its hold", level: slog.LevelInfo},
			{run: s.PruneIdempotencyKeys.Handle, failed: "pruning idempotency keys", done: "pruned idempotency keys", level: slog.LevelInfo},
			{run: s.PruneAutoresponderReservations.Handle, failed: "pruning autoresponder reservations"},
			{run: s.PruneSpentChallenges.Handle, failed: "pruning spent proof-of-work challenges"},
			{run: noCount(s.PruneThrottles.Handle), failed: "pruning password reset requests and throttle keys"},
		}},
		{name: "uploads and test inbox", every: uploadSweepInterval, tasks: []task{
			{run: s.CleanUploads.Handle, failed: "deleting expired and delivered uploads",
				done: "deleted expired and delivered uploads", level: slog.LevelInfo},
			{run: s.TestInbox.Sweep, failed: "deleting expired test submissions",
				done: "deleted expired test submissions", level: slog.LevelInfo},
		}},
	}
}

// pruneEveryTopic is one task per topic formd publishes to.
func pruneEveryTopic(prune *application.PruneMessagesHandler) []task {
	tasks := make([]task, len(application.Topics))
	for i, topic := range application.Topics {
		tasks[i] = task{
			run: func(ctx context.Context) (int, error) {
				return prune.Handle(ctx, application.PruneMessages{Topic: topic})
			},
			failed: "pruning acknowledged messages", done: "pruned acknowledged messages", level: slog.LevelDebug,
			attrs: []any{"topic", topic},
		}
	}
	return tasks
}

// noCount adapts a command that reports no count to a task.
func noCount(run func(context.Context) error) func(context.Context) (int, error) {
	return func(ctx context.Context) (int, error) { return 0, run(ctx) }
}
