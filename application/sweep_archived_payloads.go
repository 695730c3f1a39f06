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
	return shredInBatches(ctx, h.clock.Now(), h.payloads.ShredArchivedPayloads)
}

// shredInBatches runs a shredding sweep batch after batch until one comes
// back short, and says how many payloads it shredded.
func shredInBatches(ctx context.Context, now time.Time, shred func(ctx context.Context, now time.Time, limit int) (int, error)) (int, error) {
	total := 0
	for {
		n, err := shred(ctx, now, archiveShredBatch)
		total += n
		if err != nil || n < archiveShredBatch {
			return total, err
		}
	}
}

// ShredHeldSpamHandler shreds the submissions held in Spam folders whose
// hold ended unreviewed (form.Spam.HeldUntil). Several processes may run it
// at once: a payload is shredded once.
type ShredHeldSpamHandler struct {
	folder ExpiredHeldSpam
	clock  Clock
}

// NewShredHeldSpamHandler builds the handler; every dependency is required.
func NewShredHeldSpamHandler(folder ExpiredHeldSpam, clock Clock) *ShredHeldSpamHandler {
	if folder == nil || clock == nil {
		panic("application: nil dependency of ShredHeldSpamHandler")
	}
	return &ShredHeldSpamHandler{folder: folder, clock: clock}
}

// Handle shreds every held submission whose hold ended, and says how many.
func (h *ShredHeldSpamHandler) Handle(ctx context.Context) (int, error) {
	return shredInBatches(ctx, h.clock.Now(), h.folder.ShredExpiredHeld)
}
