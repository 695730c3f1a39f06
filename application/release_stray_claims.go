package application

import (
	"context"
	"time"
)

// StrayClaims releases this process's delivery claims that its workers do
// not hold.
type StrayClaims interface {
	ReleaseClaimsExcept(ctx context.Context, now time.Time, keep []string) (int64, error)
}

// ReleaseStrayClaimsHandler makes the deliveries this process claimed but
// does not hold (keep names those it holds) due again at once: after the
// database was away, a claim whose answer was lost, or a submission's
// commit whose outcome was unknown, leaves claims that no worker of this
// live process would attempt before their lease ends.
type ReleaseStrayClaimsHandler struct {
	claims StrayClaims
	clock  Clock
}

// NewReleaseStrayClaimsHandler builds the handler; every dependency is required.
func NewReleaseStrayClaimsHandler(claims StrayClaims, clock Clock) *ReleaseStrayClaimsHandler {
	if claims == nil || clock == nil {
		panic("application: nil dependency of ReleaseStrayClaimsHandler")
	}
	return &ReleaseStrayClaimsHandler{claims: claims, clock: clock}
}

// Handle releases the claims and returns how many it released.
func (h *ReleaseStrayClaimsHandler) Handle(ctx context.Context, keep []string) (int, error) {
	n, err := h.claims.ReleaseClaimsExcept(ctx, h.clock.Now(), keep)
	return int(n), err
}
