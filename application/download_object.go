package application

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/formd/formd/domain"
)

// DownloadContentType is the only type a download link serves an object
// as, whatever was declared or sniffed: bytes a browser saves, never a
// script, style sheet or page it would run on the origin that serves it.
// The file's own type travels only in its name (AttachmentDisposition).
const DownloadContentType = "application/octet-stream"

// DownloadObject is a recipient opening a download link of the built-in
// store, from a notification mail or a webhook.
type DownloadObject struct {
	Key       string
	Expires   time.Time
	Signature string
}

// ObjectDownloaded is the object to serve, as an attachment: Disposition
// is its Content-Disposition, ContentType always DownloadContentType.
type ObjectDownloaded struct {
	Name        string
	Disposition string
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
	name := safeObjectName(r.Name)
	return ObjectDownloaded{Name: name, Disposition: AttachmentDisposition(name), ContentType: DownloadContentType, Size: size, Body: body}, nil
}

// AttachmentDisposition is the Content-Disposition (RFC 6266) every
// download is served with: an attachment, named by a plain ASCII filename
// for old clients and the exact name in filename* (RFC 5987). Paths,
// quotes, backslashes and control characters never reach the header.
func AttachmentDisposition(name string) string {
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, safeObjectName(name))
	if strings.TrimSpace(name) == "" {
		name = "file"
	}
	var plain, encoded strings.Builder
	for _, r := range name {
		if r < 0x80 && r != '"' && r != '\\' {
			plain.WriteRune(r)
		} else {
			plain.WriteByte('_')
		}
	}
	for _, b := range []byte(name) {
		if isAttrChar(b) {
			encoded.WriteByte(b)
		} else {
			fmt.Fprintf(&encoded, "%%%02X", b)
		}
	}
	return `attachment; filename="` + plain.String() + `"; filename*=UTF-8''` + encoded.String()
}

// isAttrChar reports whether b may stand unencoded in an RFC 5987 value.
func isAttrChar(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return strings.IndexByte("!#$&+-.^_`|~", b) >= 0
}
