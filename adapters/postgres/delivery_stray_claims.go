package postgres

import (
	"context"
	"time"
)

// ReleaseClaimsExcept makes the deliveries this process claimed, other than
// keep (those its workers hold), due again at once: claims whose answer was
// lost, or written by a commit whose outcome was unknown, while the database
// was away. The caller makes sure no claim of its own is in flight, so every
// claim it keeps is in keep.
func (d *DeliveryStore) ReleaseClaimsExcept(ctx context.Context, now time.Time, keep []string) (int64, error) {
	if keep == nil {
		keep = []string{}
	}
	tag, err := d.pool.Exec(ctx, `
		UPDATE deliveries SET next_attempt_at = least(next_attempt_at, $2), claimed_until = NULL, claimed_by = NULL
		WHERE claimed_by = $1 AND status IN ('queued', 'retrying') AND id <> ALL ($3::uuid[])`, d.instance, now, keep)
	return tag.RowsAffected(), err
}
