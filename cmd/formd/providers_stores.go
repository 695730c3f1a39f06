package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/auditlog"
	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/secrets"
	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/events"
)

func providePool(ctx context.Context, cfg Config) (*pgxpool.Pool, func(), error) {
	pool, err := postgres.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	return pool, pool.Close, nil
}

// provideAvailability probes the database from start to shutdown, so the
// ports refuse at once while it is down; it stops before the pool closes.
func provideAvailability(ctx context.Context, pool *pgxpool.Pool) (*postgres.Availability, func()) {
	a := postgres.NewAvailability(pool)
	ctx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		a.Run(ctx)
	}()
	return a, func() { cancel(); <-stopped }
}

// provideCommitNotifier starts the notifier that wakes listeners after the
// hot paths' commits; it stops before the pool closes.
func provideCommitNotifier(pool *pgxpool.Pool, log *slog.Logger) (*postgres.CommitNotifier, func()) {
	n := postgres.NewCommitNotifier(pool, log)
	return n, n.Close
}

// provideEventStore builds the event store whose hot-path appends wake
// listeners after their commits, not inside them, and only the subscribers
// of the topics formd's consumer groups read.
func provideEventStore(n *postgres.CommitNotifier) *postgres.EventStore {
	return postgres.NewEventStore().WithCommitNotifier(n).WakingOnly(events.ConsumedTopics...)
}

// provideDeliveryStore builds the delivery store with the configured
// retention of failed submissions' payloads.
func provideDeliveryStore(pool *pgxpool.Pool, store *postgres.EventStore, retention application.FailedPayloadRetention) *postgres.DeliveryStore {
	return postgres.NewDeliveryStore(pool, store).WithFailedPayloadRetention(time.Duration(retention))
}

func provideFailedPayloadRetention(cfg Config) application.FailedPayloadRetention {
	return application.FailedPayloadRetention(cfg.FailedPayloadRetention)
}

// provideKeys loads the keyring and logs its key ids (never the keys), so an
// operator rotating keys can tell which payloads still need an old one.
func provideKeys(cfg Config, log *slog.Logger) (secrets.Keyring, error) {
	r, err := secrets.LoadKeys(cfg.SecretKey, cfg.OldSecretKeys, cfg.DataDir, cfg.Dev, log)
	if err != nil {
		return r, err
	}
	old := make([]string, len(r.Old))
	for i, k := range r.Old {
		old[i] = k.ID()
	}
	log.Info("secret keys", "currentKeyId", r.Current.ID(), "oldKeyIds", old)
	return r, nil
}

// provideAuditSigner loads the key that signs the audit log's checkpoints
// and logs its verifier key (the public half, never the signing key), so an
// operator can check it against the one auditors pinned.
func provideAuditSigner(cfg Config, log *slog.Logger) (*auditlog.Signer, error) {
	s, err := auditlog.LoadSigningKey(cfg.AuditSigningKey, cfg.DataDir, cfg.Dev, log)
	if err != nil {
		return nil, err
	}
	log.Info("audit signing key", "verifierKey", s.VerifierKey())
	return s, nil
}

func provideSealer(r secrets.Keyring) (*secrets.Sealer, error) { return secrets.NewSealer(r) }

// provideUnreadMessageRetention is FORMD_UNREAD_MESSAGE_RETENTION.
func provideUnreadMessageRetention(cfg Config) application.UnreadMessageRetention {
	return application.UnreadMessageRetention(cfg.UnreadMessageRetention)
}
