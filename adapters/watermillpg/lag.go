package watermillpg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// GroupLag is how many committed messages of a topic a consumer group has
// not acknowledged yet.
type GroupLag struct {
	Topic, Group string
	Messages     int64
}

// Lag reads the lag of every consumer group of topic from the offsets and
// message tables, so it is the same whichever process asks. A group's
// position is (transaction id, offset), the order watermill-sql reads in;
// the count walks the message table's primary key from there, so it costs
// what the lag is, not what the table holds. A group that has acknowledged
// nothing yet has no row and is not reported.
func Lag(ctx context.Context, pool *pgxpool.Pool, topic string) ([]GroupLag, error) {
	messages := pgx.Identifier{"watermill_" + topic}.Sanitize()
	offsets := pgx.Identifier{"watermill_offsets_" + topic}.Sanitize()
	rows, err := pool.Query(ctx, fmt.Sprintf(`
		SELECT o.consumer_group,
		       (SELECT count(*) FROM %s m
		        WHERE (m.transaction_id, m."offset") > (o.last_processed_transaction_id, coalesce(o.offset_acked, 0)))
		FROM %s o`, messages, offsets))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (GroupLag, error) {
		l := GroupLag{Topic: topic}
		err := row.Scan(&l.Group, &l.Messages)
		return l, err
	})
}
