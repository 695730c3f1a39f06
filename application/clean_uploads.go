package application

import (
	"context"
	"errors"
	"fmt"
)

// CleanUploadsHandler deletes the objects and reservations that are no
// longer needed: unused keys once they expire, and used ones once their
// download links expired and their submission's payload was shredded
// (whichever is later). Several processes may run it at once: deleting is
// idempotent, and the object goes before its reservation, so a crash in
// between leaves the reservation for the next sweep.
type CleanUploadsHandler struct {
	reservations UploadReservations
	objects      ObjectStore
	clock        Clock
}

// NewCleanUploadsHandler builds the handler; every dependency is required.
func NewCleanUploadsHandler(reservations UploadReservations, objects ObjectStore, clock Clock) *CleanUploadsHandler {
	if reservations == nil || objects == nil || clock == nil {
		panic("application: nil dependency of CleanUploadsHandler")
	}
	return &CleanUploadsHandler{reservations: reservations, objects: objects, clock: clock}
}

// cleanBatch bounds one pass; the sweep runs again until nothing is due.
const cleanBatch = 200

// Handle removes what is due and says how many uploads went.
func (h *CleanUploadsHandler) Handle(ctx context.Context) (int, error) {
	removed := 0
	for {
		keys, err := h.reservations.DueForCleanup(ctx, h.clock.Now(), cleanBatch)
		if err != nil || len(keys) == 0 {
			return removed, err
		}
		var errs []error
		for _, key := range keys {
			if err := h.objects.Delete(ctx, key); err != nil {
				errs = append(errs, fmt.Errorf("deleting object %s: %w", key, err))
				continue
			}
			if err := h.reservations.Forget(ctx, key); err != nil {
				errs = append(errs, err)
				continue
			}
			removed++
		}
		if len(errs) > 0 || len(keys) < cleanBatch {
			return removed, errors.Join(errs...)
		}
	}
}
