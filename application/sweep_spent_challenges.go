package application

import (
	"context"
	"time"
)

// ExpiredChallenges forgets the spent proof-of-work challenges that expired before now.
type ExpiredChallenges interface {
	PruneSpentChallenges(ctx context.Context, now time.Time) (int64, error)
}

// PruneSpentChallengesHandler deletes the record of spent challenges once
// they expired: a solution of an expired challenge is refused anyway, so
// its record has done its work. Several processes may run it at once.
type PruneSpentChallengesHandler struct {
	challenges ExpiredChallenges
	clock      Clock
}

// NewPruneSpentChallengesHandler builds the handler; every dependency is required.
func NewPruneSpentChallengesHandler(challenges ExpiredChallenges, clock Clock) *PruneSpentChallengesHandler {
	if challenges == nil || clock == nil {
		panic("application: nil dependency of PruneSpentChallengesHandler")
	}
	return &PruneSpentChallengesHandler{challenges: challenges, clock: clock}
}

// Handle says how many challenges went.
func (h *PruneSpentChallengesHandler) Handle(ctx context.Context) (int, error) {
	n, err := h.challenges.PruneSpentChallenges(ctx, h.clock.Now())
	return int(n), err
}
