package application

import (
	"context"
	"time"
)

// ThrottleRecords forgets the password reset requests and throttle keys too
// old to count at now.
type ThrottleRecords interface {
	PruneThrottles(ctx context.Context, now time.Time) error
}

// PruneThrottlesHandler deletes the password reset requests and throttle
// keys that no longer hold anyone back. Several processes may run it at
// once: the deletes are idempotent.
type PruneThrottlesHandler struct {
	throttles ThrottleRecords
	clock     Clock
}

// NewPruneThrottlesHandler builds the handler; every dependency is required.
func NewPruneThrottlesHandler(throttles ThrottleRecords, clock Clock) *PruneThrottlesHandler {
	if throttles == nil || clock == nil {
		panic("application: nil dependency of PruneThrottlesHandler")
	}
	return &PruneThrottlesHandler{throttles: throttles, clock: clock}
}

// Handle deletes what no longer counts.
func (h *PruneThrottlesHandler) Handle(ctx context.Context) error {
	return h.throttles.PruneThrottles(ctx, h.clock.Now())
}
