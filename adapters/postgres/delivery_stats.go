package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// DeliveryQueueStats is the state of the delivery queue as every process
// shares it.
type DeliveryQueueStats struct {
	// Queued and Retrying count the deliveries not yet final, by state;
	// claimed ones (being attempted) included.
	Queued, Retrying int64
	// OldestDue is how long the delivery that has been due the longest has
	// waited for a worker; zero when none is due.
	OldestDue time.Duration
}

// QueueStats reads the delivery queue's depth and the age of its oldest due
// delivery, for metrics. It reads only the deliveries not yet final, through
// the deliveries_claimable partial index, so its cost follows the backlog, not
// the delivery log. The age is measured on the database's clock, which every
// process shares.
func (d *DeliveryStore) QueueStats(ctx context.Context) (DeliveryQueueStats, error) {
	rows, err := d.pool.Query(ctx, `
		SELECT status, count(*),
		       coalesce(extract(epoch FROM now() - min(next_attempt_at)
		                    FILTER (WHERE next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until <= now()))), 0)::float8
		FROM deliveries WHERE status IN ('queued', 'retrying') GROUP BY status`)
	if err != nil {
		return DeliveryQueueStats{}, err
	}
	var s DeliveryQueueStats
	var status string
	var n int64
	var age float64
	_, err = pgx.ForEachRow(rows, []any{&status, &n, &age}, func() error {
		if status == "queued" {
			s.Queued = n
		} else {
			s.Retrying = n
		}
		s.OldestDue = max(s.OldestDue, time.Duration(age*float64(time.Second)))
		return nil
	})
	return s, err
}
