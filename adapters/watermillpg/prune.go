package watermillpg

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// UnconsumedRetention is how long messages of a topic that no consumer group
// reads are kept. The events table keeps every event for good; the Watermill
// tables are only transport.
const UnconsumedRetention = 7 * 24 * time.Hour

// Prune deletes the messages of topic that every consumer group has
// acknowledged (or, when no group reads the topic, that are older than
// UnconsumedRetention). It returns how many it deleted.
func Prune(ctx context.Context, pool *pgxpool.Pool, topic string) (int64, error) {
	messages := fmt.Sprintf(`"watermill_%s"`, topic)
	offsets := fmt.Sprintf(`"watermill_offsets_%s"`, topic)
	var groups int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+offsets).Scan(&groups); err != nil {
		return 0, err
	}
	if groups == 0 {
		tag, err := pool.Exec(ctx, `DELETE FROM `+messages+` WHERE created_at < LOCALTIMESTAMP - $1::interval`,
			UnconsumedRetention.String())
		return tag.RowsAffected(), err
	}
	// The slowest group's position, as (transaction id, offset): everything at
	// or before it has been acknowledged by every group.
	tag, err := pool.Exec(ctx, `
		WITH slowest AS (
			SELECT last_processed_transaction_id AS tx, offset_acked AS off FROM `+offsets+`
			ORDER BY last_processed_transaction_id, offset_acked LIMIT 1)
		DELETE FROM `+messages+` m USING slowest
		WHERE m.transaction_id < slowest.tx OR (m.transaction_id = slowest.tx AND m."offset" <= slowest.off)`)
	return tag.RowsAffected(), err
}
