package application

import (
	"context"
	"time"
)

// ExpiredPayloads shreds the sealed payloads kept for a retry by hand of a
// failed delivery once their retention ran out before now, and says how many.
type ExpiredPayloads interface {
	ShredExpiredPayloads(ctx context.Context, now time.Time) (int, error)
}

// ShredExpiredPayloadsHandler shreds the payloads of submissions with a
// failed delivery once FORMD_FAILED_PAYLOAD_RETENTION ran out and no retry
// is under way. Several processes may run it at once: a payload is shredded
// once.
type ShredExpiredPayloadsHandler struct {
	payloads ExpiredPayloads
	clock    Clock
}

// NewShredExpiredPayloadsHandler builds the handler; every dependency is required.
func NewShredExpiredPayloadsHandler(payloads ExpiredPayloads, clock Clock) *ShredExpiredPayloadsHandler {
	if payloads == nil || clock == nil {
		panic("application: nil dependency of ShredExpiredPayloadsHandler")
	}
	return &ShredExpiredPayloadsHandler{payloads: payloads, clock: clock}
}

// Handle says how many payloads were shredded.
func (h *ShredExpiredPayloadsHandler) Handle(ctx context.Context) (int, error) {
	return h.payloads.ShredExpiredPayloads(ctx, h.clock.Now())
}
