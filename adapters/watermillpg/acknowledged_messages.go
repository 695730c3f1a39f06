package watermillpg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// AcknowledgedMessages prunes the topics' message tables on pool: it
// implements application.AcknowledgedMessages.
type AcknowledgedMessages struct{ pool *pgxpool.Pool }

// NewAcknowledgedMessages builds the pruner on pool.
func NewAcknowledgedMessages(pool *pgxpool.Pool) *AcknowledgedMessages {
	return &AcknowledgedMessages{pool: pool}
}

// PruneMessages deletes what Prune deletes of topic.
func (m *AcknowledgedMessages) PruneMessages(ctx context.Context, topic string, unread time.Duration) (int64, error) {
	return Prune(ctx, m.pool, topic, unread)
}
