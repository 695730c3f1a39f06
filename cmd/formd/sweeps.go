package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/watermillpg"
	"github.com/formd/formd/application"
)

// keepClaimsAlive beats this process's heartbeat, so other processes keep
// their hands off its claimed deliveries, and releases the claims of
// processes whose heartbeat stopped (they died), so those deliveries are
// sent within seconds rather than after their lease.
func keepClaimsAlive(ctx context.Context, deliveries *postgres.DeliveryStore, log *slog.Logger) {
	t := time.NewTicker(postgres.HeartbeatInterval)
	defer t.Stop()
	for {
		now := time.Now()
		if err := deliveries.Heartbeat(ctx, now); err != nil && ctx.Err() == nil {
			log.Warn("delivery heartbeat", "err", err)
		}
		if n, err := deliveries.ReleaseDeadClaims(ctx, now); err != nil && ctx.Err() == nil {
			log.Warn("releasing claims of stopped processes", "err", err)
		} else if n > 0 {
			log.Info("released deliveries claimed by a process that stopped", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// pruneMessages deletes acknowledged Watermill messages every minute: under
// load a topic gains millions of messages an hour, and an hourly prune made
// one large burst of deletes; each minute's share is a few short chunks.
// Several processes may run it at once: the deletes are idempotent.
func pruneMessages(ctx context.Context, pool *pgxpool.Pool, unread time.Duration, log *slog.Logger) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		for _, topic := range application.Topics {
			if n, err := watermillpg.Prune(ctx, pool, topic, unread); err != nil && ctx.Err() == nil {
				log.Warn("pruning acknowledged messages", "topic", topic, "err", err)
			} else if n > 0 {
				log.Debug("pruned acknowledged messages", "topic", topic, "count", n)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// maintain prunes expired Idempotency-Key records, autoresponder
// reservations, spent proof-of-work challenges and old password reset
// requests, and shreds the payloads
// kept for failed deliveries once their retention ran out, hourly. Several
// processes may run it at once: every delete is idempotent.
func maintain(ctx context.Context, pool *pgxpool.Pool, deliveries *postgres.DeliveryStore, log *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if n, err := deliveries.ShredExpiredPayloads(ctx, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("shredding the payloads of failed deliveries past their retention", "err", err)
		} else if n > 0 {
			log.Info("shredded the payloads of failed deliveries past their retention", "count", n)
		}
		if n, err := postgres.PruneIdempotencyKeys(ctx, pool); err != nil && ctx.Err() == nil {
			log.Warn("pruning idempotency keys", "err", err)
		} else if n > 0 {
			log.Info("pruned idempotency keys", "count", n)
		}
		if _, err := postgres.PruneAutoresponderSends(ctx, pool); err != nil && ctx.Err() == nil {
			log.Warn("pruning autoresponder reservations", "err", err)
		}
		if _, err := postgres.PruneSpentChallenges(ctx, pool, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("pruning spent proof-of-work challenges", "err", err)
		}
		if err := postgres.PruneThrottles(ctx, pool, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("pruning password reset requests and throttle keys", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sweep deletes the objects and reservations of unused upload keys that
// expired and of delivered uploads whose links expired, and the test
// inbox's renderings past their retention. Several processes may sweep at
// once: deleting is idempotent.
func sweep(ctx context.Context, clean *application.CleanUploadsHandler, inbox *application.TestInbox, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := clean.Handle(ctx); err != nil && ctx.Err() == nil {
			log.Warn("deleting expired and delivered uploads", "err", err)
		} else if n > 0 {
			log.Info("deleted expired and delivered uploads", "count", n)
		}
		if n, err := inbox.Sweep(ctx); err != nil && ctx.Err() == nil {
			log.Warn("deleting expired test submissions", "err", err)
		} else if n > 0 {
			log.Info("deleted expired test submissions", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
