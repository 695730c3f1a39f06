package postgres

import (
	"context"
	"time"
)

// Process liveness: how often a process says it is alive, and how long
// without a word counts as dead.
const (
	HeartbeatInterval = 2 * time.Second
	DeadAfter         = 10 * time.Second
)

// Heartbeat records that this process is alive, so its claims are kept.
func (d *DeliveryStore) Heartbeat(ctx context.Context, now time.Time) error {
	_, err := d.pool.Exec(ctx, `INSERT INTO delivery_workers (instance_id, seen_at) VALUES ($1, $2)
		ON CONFLICT (instance_id) DO UPDATE SET seen_at = EXCLUDED.seen_at`, d.instance, now)
	return err
}

// ReleaseDeadClaims makes the deliveries claimed by processes that stopped
// beating due again at once, and forgets those processes, in one statement:
// a process killed mid-claim delays its deliveries by DeadAfter, not by the
// lease. (A live process's claims are never released: a slow send is not a
// dead process.)
func (d *DeliveryStore) ReleaseDeadClaims(ctx context.Context, now time.Time) (int64, error) {
	tag, err := d.pool.Exec(ctx, `
		WITH dead AS (DELETE FROM delivery_workers WHERE seen_at < $1 RETURNING instance_id)
		UPDATE deliveries SET next_attempt_at = least(next_attempt_at, $2), claimed_until = NULL, claimed_by = NULL
		WHERE claimed_by IN (SELECT instance_id FROM dead) AND status IN ('queued', 'retrying')`,
		now.Add(-DeadAfter), now)
	return tag.RowsAffected(), err
}

// Leave forgets this process at a clean shutdown and releases what it still
// holds claimed (nothing, once its workers have finished).
func (d *DeliveryStore) Leave(ctx context.Context, now time.Time) error {
	_, err := d.pool.Exec(ctx, `
		WITH gone AS (DELETE FROM delivery_workers WHERE instance_id = $1 RETURNING instance_id)
		UPDATE deliveries SET next_attempt_at = least(next_attempt_at, $2), claimed_until = NULL, claimed_by = NULL
		WHERE claimed_by = $1 AND status IN ('queued', 'retrying')`, d.instance, now)
	return err
}
