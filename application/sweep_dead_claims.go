package application

import (
	"context"
	"time"
)

// ProcessLiveness is what keeps claimed deliveries with a live process: a
// heartbeat for this process, and the release of the claims of processes
// whose heartbeat stopped.
type ProcessLiveness interface {
	Heartbeat(ctx context.Context, now time.Time) error
	ReleaseDeadClaims(ctx context.Context, now time.Time) (int64, error)
}

// HeartbeatHandler records that this process is alive, so other processes
// keep their hands off the deliveries it claimed.
type HeartbeatHandler struct {
	liveness ProcessLiveness
	clock    Clock
}

// NewHeartbeatHandler builds the handler; every dependency is required.
func NewHeartbeatHandler(liveness ProcessLiveness, clock Clock) *HeartbeatHandler {
	if liveness == nil || clock == nil {
		panic("application: nil dependency of HeartbeatHandler")
	}
	return &HeartbeatHandler{liveness: liveness, clock: clock}
}

// Handle beats once.
func (h *HeartbeatHandler) Handle(ctx context.Context) error {
	return h.liveness.Heartbeat(ctx, h.clock.Now())
}

// ReleaseDeadClaimsHandler makes the deliveries claimed by processes that
// stopped beating (they died) due again, so they are sent within seconds
// rather than after their lease.
type ReleaseDeadClaimsHandler struct {
	liveness ProcessLiveness
	clock    Clock
}

// NewReleaseDeadClaimsHandler builds the handler; every dependency is required.
func NewReleaseDeadClaimsHandler(liveness ProcessLiveness, clock Clock) *ReleaseDeadClaimsHandler {
	if liveness == nil || clock == nil {
		panic("application: nil dependency of ReleaseDeadClaimsHandler")
	}
	return &ReleaseDeadClaimsHandler{liveness: liveness, clock: clock}
}

// Handle says how many deliveries were released.
func (h *ReleaseDeadClaimsHandler) Handle(ctx context.Context) (int, error) {
	n, err := h.liveness.ReleaseDeadClaims(ctx, h.clock.Now())
	return int(n), err
}
