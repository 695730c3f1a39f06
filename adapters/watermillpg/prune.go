package watermillpg

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// UnconsumedRetention is how long messages of a topic that no consumer group
// reads are kept by default (FORMD_UNREAD_MESSAGE_RETENTION): a consumer
// group added later, such as a forwarder to another transport, finds a week
// of them. The events table keeps every event for good; the Watermill
// tables are only transport. A message takes about 360 bytes with its key,
// so a week of them is about 218 MB per submission a second.
const UnconsumedRetention = 7 * 24 * time.Hour

// PruneChunk is the most messages one prune statement deletes. At a
// thousand submissions a second a topic gains millions of messages an hour:
// deleted in one statement, they made one long transaction and a burst of
// WAL that stalled the hot path. In chunks, each statement is an index
// range scan from the oldest message and a short transaction.
const PruneChunk = 10000

// Prune deletes the messages of topic that every consumer group has
// acknowledged (or, when no group reads the topic, that are older than
// unread), PruneChunk at a time. It returns how many it deleted.
func Prune(ctx context.Context, pool *pgxpool.Pool, topic string, unread time.Duration) (int64, error) {
	return PruneInChunks(ctx, pool, topic, PruneChunk, unread)
}

// PruneInChunks is Prune with chunks of the given size.
func PruneInChunks(ctx context.Context, pool *pgxpool.Pool, topic string, chunk int, unread time.Duration) (int64, error) {
	messages := fmt.Sprintf(`"watermill_%s"`, topic)
	offsets := fmt.Sprintf(`"watermill_offsets_%s"`, topic)
	var groups int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+offsets).Scan(&groups); err != nil {
		return 0, err
	}
	// Both deletes walk the primary key (transaction_id, offset) from its
	// start, the order in which messages were written.
	query := `
		WITH slowest AS (
			SELECT last_processed_transaction_id AS tx, offset_acked AS off FROM ` + offsets + `
			ORDER BY last_processed_transaction_id, offset_acked LIMIT 1),
		doomed AS (
			SELECT m.transaction_id, m."offset" FROM ` + messages + ` m
			WHERE (m.transaction_id, m."offset") <= ((SELECT tx FROM slowest), (SELECT off FROM slowest))
			ORDER BY m.transaction_id, m."offset" LIMIT $1)
		DELETE FROM ` + messages + ` m USING doomed
		WHERE m.transaction_id = doomed.transaction_id AND m."offset" = doomed."offset"`
	args := []any{chunk}
	if groups == 0 {
		// No index on created_at: the oldest messages by key are the oldest
		// by time, so a chunk that holds a newer one ends the walk. (A
		// message written by a transaction that began earlier but committed
		// later may wait for the next run.)
		query = `
			WITH doomed AS (
				SELECT transaction_id, "offset", created_at FROM ` + messages + `
				ORDER BY transaction_id, "offset" LIMIT $1)
			DELETE FROM ` + messages + ` m USING doomed
			WHERE m.transaction_id = doomed.transaction_id AND m."offset" = doomed."offset"
			  AND doomed.created_at < LOCALTIMESTAMP - $2::interval`
		args = append(args, unread.String())
	}
	var total int64
	for {
		tag, err := pool.Exec(ctx, query, args...)
		total += tag.RowsAffected()
		if err != nil || tag.RowsAffected() < int64(chunk) {
			return total, err
		}
	}
}
