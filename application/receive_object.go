package application

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/formd/formd/domain"
)

// ReceiveObject is a client's upload to formd's built-in store: the signed
// PUT that GET /upload handed out.
type ReceiveObject struct {
	Key       string
	Expires   time.Time
	Signature string
	// Size is the request's Content-Length; -1 when it has none.
	Size int64
	Body io.Reader
}

// ObjectReceived says what became of an upload: stored and scanned clean.
type ObjectReceived struct {
	Key  string
	Size int64
}

// ErrLinkInvalid refuses an object URL whose signature is wrong or that
// expired: answered as 403.
var ErrLinkInvalid = &domain.PermissionDeniedError{Message: "This upload or download link is invalid or has expired."}

// ErrObjectExists is an ObjectStore's refusal to replace an object: a
// second PUT, finishing after a submission consumed the key, would swap
// unscanned bytes in under the clean verdict. Answered as 400.
var ErrObjectExists = &domain.ForbiddenError{Message: "A file was already uploaded under this key: submit the key, or reserve a new one with GET /upload for another file."}

// ReceiveObjectHandler stores an upload in the built-in store and scans it
// at once, so a submission can use it without waiting.
type ReceiveObjectHandler struct {
	reservations UploadReservations
	objects      ObjectStore
	links        ObjectLinks
	intake       *UploadIntake
	clock        Clock
}

// NewReceiveObjectHandler builds the handler; every dependency is required.
func NewReceiveObjectHandler(reservations UploadReservations, objects ObjectStore, links ObjectLinks, intake *UploadIntake, clock Clock) *ReceiveObjectHandler {
	if reservations == nil || objects == nil || links == nil || intake == nil || clock == nil {
		panic("application: nil dependency of ReceiveObjectHandler")
	}
	return &ReceiveObjectHandler{reservations: reservations, objects: objects, links: links, intake: intake, clock: clock}
}

// Handle checks the link, stores exactly the reserved number of bytes, and
// scans them; an infected object is deleted and refused.
func (h *ReceiveObjectHandler) Handle(ctx context.Context, cmd ReceiveObject) (ObjectReceived, error) {
	now := h.clock.Now()
	if !now.Before(cmd.Expires) || !h.links.Verify(ObjectPut, cmd.Key, cmd.Expires, cmd.Signature) {
		return ObjectReceived{}, ErrLinkInvalid
	}
	r, err := h.reservations.Reservation(ctx, cmd.Key)
	if errors.Is(err, domain.ErrNotFound) || (err == nil && (r.ConsumedBy != "" || !now.Before(r.ExpiresAt))) {
		return ObjectReceived{}, &domain.ForbiddenError{Message: "This upload key was used or has expired; reserve a new one with GET /upload."}
	}
	if err != nil {
		return ObjectReceived{}, err
	}
	if !r.UploadedAt.IsZero() { // one key, one upload: refused before its body is read
		return ObjectReceived{}, ErrObjectExists
	}
	if cmd.Size != r.Size {
		return ObjectReceived{}, domain.Invalid("Content-Length", "the upload must be exactly %d bytes, as reserved", r.Size)
	}
	if err := h.objects.Put(ctx, r.Key, cmd.Body, r.Size, r.DeclaredType); err != nil {
		return ObjectReceived{}, fmt.Errorf("storing upload %s: %w", r.Key, err)
	}
	if err := h.reservations.RecordUpload(ctx, r.Key, r.Size, now); err != nil {
		return ObjectReceived{}, err
	}
	r.UploadedAt, r.StoredSize, r.Scan = now, r.Size, ScanPending
	r, _, err = h.intake.ensureScanned(ctx, r)
	if err != nil {
		return ObjectReceived{}, err
	}
	if r.Scan == ScanStateInfected {
		return ObjectReceived{}, &domain.ForbiddenError{Message: "The file is refused: the malware scanner found it infected (" + r.Signature + ")."}
	}
	return ObjectReceived{Key: r.Key, Size: r.StoredSize}, nil
}
