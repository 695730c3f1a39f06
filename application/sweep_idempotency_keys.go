package application

import "context"

// IdempotencyKeyRecords forgets the Idempotency-Key answers whose retention ran out.
type IdempotencyKeyRecords interface {
	PruneIdempotencyKeys(ctx context.Context) (int64, error)
}

// PruneIdempotencyKeysHandler deletes the Idempotency-Key records too old
// to answer a retry. Several processes may run it at once: the delete is
// idempotent.
type PruneIdempotencyKeysHandler struct{ keys IdempotencyKeyRecords }

// NewPruneIdempotencyKeysHandler builds the handler; keys is required.
func NewPruneIdempotencyKeysHandler(keys IdempotencyKeyRecords) *PruneIdempotencyKeysHandler {
	if keys == nil {
		panic("application: nil dependency of PruneIdempotencyKeysHandler")
	}
	return &PruneIdempotencyKeysHandler{keys: keys}
}

// Handle says how many records went.
func (h *PruneIdempotencyKeysHandler) Handle(ctx context.Context) (int, error) {
	n, err := h.keys.PruneIdempotencyKeys(ctx)
	return int(n), err
}
