package application

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/submission"
)

// DownloadObject is a recipient opening a download link of the built-in
// store, from a notification mail or a webhook.
type DownloadObject struct {
	Key       string
	Expires   time.Time
	Signature string
}

// ObjectDownloaded is the object to serve, as an attachment.
type ObjectDownloaded struct {
	Name        string
	ContentType string
	Size        int64
	Body        io.ReadCloser
}

// DownloadObjectHandler serves the objects of the built-in store.
type DownloadObjectHandler struct {
	reservations UploadReservations
	objects      ObjectStore
	links        ObjectLinks
	clock        Clock
}

// NewDownloadObjectHandler builds the handler; every dependency is required.
func NewDownloadObjectHandler(reservations UploadReservations, objects ObjectStore, links ObjectLinks, clock Clock) *DownloadObjectHandler {
	if reservations == nil || objects == nil || links == nil || clock == nil {
		panic("application: nil dependency of DownloadObjectHandler")
	}
	return &DownloadObjectHandler{reservations: reservations, objects: objects, links: links, clock: clock}
}

// Handle checks the link and opens the object of a consumed, clean upload;
// the caller closes Body.
func (h *DownloadObjectHandler) Handle(ctx context.Context, q DownloadObject) (ObjectDownloaded, error) {
	if !h.clock.Now().Before(q.Expires) || !h.links.Verify(ObjectGet, q.Key, q.Expires, q.Signature) {
		return ObjectDownloaded{}, ErrLinkInvalid
	}
	r, err := h.reservations.Reservation(ctx, q.Key)
	if err != nil {
		return ObjectDownloaded{}, err
	}
	if r.ConsumedBy == "" || r.Scan != ScanStateClean {
		return ObjectDownloaded{}, domain.ErrNotFound
	}
	body, size, err := h.objects.Open(ctx, q.Key)
	if errors.Is(err, domain.ErrNotFound) {
		return ObjectDownloaded{}, domain.ErrNotFound
	}
	if err != nil {
		return ObjectDownloaded{}, err
	}
	// Served as the gates judged it: sniffed, or declared for plain text.
	contentType := submission.File{DeclaredType: r.DeclaredType, Detected: r.Detected}.Type()
	return ObjectDownloaded{Name: safeObjectName(r.Name), ContentType: contentType, Size: size, Body: body}, nil
}
