package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ExpiredRecords deletes the short-lived records kept beside the event
// store once they have done their work: it implements the application's
// IdempotencyKeyRecords, AutoresponderReservations, ExpiredChallenges and
// ThrottleRecords.
type ExpiredRecords struct{ pool *pgxpool.Pool }

// NewExpiredRecords builds the sweeps on pool.
func NewExpiredRecords(pool *pgxpool.Pool) *ExpiredRecords { return &ExpiredRecords{pool: pool} }

// PruneIdempotencyKeys deletes keys older than IdempotencyRetention.
func (r *ExpiredRecords) PruneIdempotencyKeys(ctx context.Context) (int64, error) {
	return PruneIdempotencyKeys(ctx, r.pool)
}

// PruneAutoresponderReservations deletes reservations older than AutoresponderWindow.
func (r *ExpiredRecords) PruneAutoresponderReservations(ctx context.Context) (int64, error) {
	return PruneAutoresponderSends(ctx, r.pool)
}

// PruneSpentChallenges deletes the challenges that expired before now.
func (r *ExpiredRecords) PruneSpentChallenges(ctx context.Context, now time.Time) (int64, error) {
	return PruneSpentChallenges(ctx, r.pool, now)
}

// PruneThrottles deletes the password reset requests and throttle keys too old to count.
func (r *ExpiredRecords) PruneThrottles(ctx context.Context, now time.Time) error {
	return PruneThrottles(ctx, r.pool, now)
}
