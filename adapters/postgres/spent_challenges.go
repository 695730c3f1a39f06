package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// SpentChallenges implements application.SpentChallenges on the
// spent_challenges table, so a solution accepted by one process is refused
// by every other.
type SpentChallenges struct{ pool *pgxpool.Pool }

// NewSpentChallenges builds the record on pool.
func NewSpentChallenges(pool *pgxpool.Pool) *SpentChallenges { return &SpentChallenges{pool: pool} }

// Spend implements application.SpentChallenges: the insert either takes the
// challenge's row or finds it taken, in one statement, so two concurrent
// submissions of one solution cannot both win.
func (s *SpentChallenges) Spend(ctx context.Context, challenge string, expiresAt time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, `INSERT INTO spent_challenges (challenge, expires_at) VALUES ($1, $2)
		ON CONFLICT (challenge) DO NOTHING`, challenge, expiresAt)
	return tag.RowsAffected() == 1, err
}

// PruneSpentChallenges deletes the challenges that expired before now: a
// solution of one is refused as expired, so its row has done its work.
func PruneSpentChallenges(ctx context.Context, pool *pgxpool.Pool, now time.Time) (int64, error) {
	tag, err := pool.Exec(ctx, `DELETE FROM spent_challenges WHERE expires_at < $1`, now)
	return tag.RowsAffected(), err
}
