package application

import (
	"context"
	"time"
)

// ArchivedPayloads shreds the sealed payloads the submissions archive kept
// (form.Archive) once their retention ended before now: at most limit in
// one transaction, recording submission.redacted on each, as a final
// delivery does for a payload nothing keeps. It says how many it shredded.
type ArchivedPayloads interface {
	ShredArchivedPayloads(ctx context.Context, now time.Time, limit int) (int, error)
}

// archiveShredBatch bounds one transaction of the archive sweep, so a day of
// expiring submissions is shredded in short transactions rather than one
// long one holding every row.
const archiveShredBatch = 500

// ShredArchivedPayloadsHandler shreds archived payloads whose retention
// ended, whose deliveries are all final and whose failed delivery's hold for
// a retry ended too. Several processes may run it at once: a payload is
// shredded once.
type ShredArchivedPayloadsHandler struct {
	payloads ArchivedPayloads
	clock    Clock
}

// NewShredArchivedPayloadsHandler builds the handler; every dependency is required.
func NewShredArchivedPayloadsHandler(payloads ArchivedPayloads, clock Clock) *ShredArchivedPayloadsHandler {
	if payloads == nil || clock == nil {
		panic("application: nil dependency of ShredArchivedPayloadsHandler")
	}
	return &ShredArchivedPayloadsHandler{payloads: payloads, clock: clock}
}

// Handle shreds batch after batch until one comes back short, and says how
// many payloads it shredded.
func (h *ShredArchivedPayloadsHandler) Handle(ctx context.Context) (int, error) {
	now := h.clock.Now()
	total := 0
	for {
		n, err := h.payloads.ShredArchivedPayloads(ctx, now, archiveShredBatch)
		total += n
		if err != nil || n < archiveShredBatch {
			return total, err
		}
	}
}
