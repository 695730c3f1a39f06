package application

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/submission"
)

// ReserveUpload is GET /upload: a client asks to upload one file in
// advance, straight to storage.
type ReserveUpload struct {
	AccessKey string
	// Name, Type and Size are what the client says of the file.
	Name    string
	Type    string
	Size    int64
	Origin  string
	Referer string
	// RemoteIP is the client's address, judged when the request carries
	// neither Origin nor Referer (a server-side request).
	RemoteIP string
}

// UploadReserved is the answer: a single-use key to submit in place of the
// file, and how to upload the file before ExpiresAt.
type UploadReserved struct {
	Key       string
	Upload    UploadTarget
	MaxBytes  int64
	ExpiresAt time.Time
}

// MsgUploadsNeedScanner refuses GET /upload on a server without a malware
// scanner: an object nobody scanned is never delivered.
const MsgUploadsNeedScanner = "Advanced uploads need a malware scanner, and this server has none configured (FORMD_CLAMD_ADDR). Send the file in a multipart post instead."

// ReserveUploadHandler reserves upload keys.
type ReserveUploadHandler struct {
	forms        SubmissionForms
	ent          Entitlements
	reservations UploadReservations
	links        ObjectLinks
	intake       *UploadIntake
	clock        Clock
}

// NewReserveUploadHandler builds the handler; every dependency is required.
func NewReserveUploadHandler(forms SubmissionForms, ent Entitlements, reservations UploadReservations, links ObjectLinks,
	intake *UploadIntake, clock Clock) *ReserveUploadHandler {
	if forms == nil || ent == nil || reservations == nil || links == nil || intake == nil || clock == nil {
		panic("application: nil dependency of ReserveUploadHandler")
	}
	return &ReserveUploadHandler{forms: forms, ent: ent, reservations: reservations, links: links, intake: intake, clock: clock}
}

// judge reads the form (from the cache unless fresh) and judges the
// reservation against it; it returns the refusal, or "".
func (h *ReserveUploadHandler) judge(ctx context.Context, q ReserveUpload, declared string, fresh bool) (FormRecord, string, error) {
	rec, err := h.forms.FormByAccessKey(ctx, HashSecret(q.AccessKey), fresh)
	if errors.Is(err, domain.ErrNotFound) {
		return FormRecord{}, "", domain.Invalid("access_key", "%s", submission.MsgAccessKeyUnknown)
	}
	if err != nil {
		return FormRecord{}, "", err
	}
	ent, err := heldEntitlements(ctx, h.ent, rec.AccountID, account.FeatureUploads, account.FeatureServerSide)
	if err != nil {
		return FormRecord{}, "", err
	}
	r := submission.Reservation{Name: q.Name, DeclaredType: declared, Size: q.Size, Origin: q.Origin, Referer: q.Referer, RemoteIP: q.RemoteIP}
	return rec, submission.JudgeReservation(r, rec.Settings, ent), nil
}

// Handle checks the file as a submission's would be checked, by what the
// client declares, and reserves a key for it.
func (h *ReserveUploadHandler) Handle(ctx context.Context, q ReserveUpload) (UploadReserved, error) {
	if h.intake.settings.Scanner == nil {
		return UploadReserved{}, &domain.ForbiddenError{Message: MsgUploadsNeedScanner}
	}
	if q.AccessKey == "" {
		return UploadReserved{}, domain.Invalid("access_key", "%s", submission.MsgAccessKeyMissing)
	}
	switch {
	case q.Name == "":
		return UploadReserved{}, domain.Invalid("name", "name is required: the file's name")
	case len(q.Name) > 255:
		return UploadReserved{}, domain.Invalid("name", "name must be at most 255 bytes")
	case q.Size <= 0:
		return UploadReserved{}, domain.Invalid("size", "size is required: the file's size in bytes, more than 0")
	}
	declared := h.intake.sniffer.Canonical(q.Type)
	if q.Type != "" && declared == "" {
		return UploadReserved{}, domain.Invalid("type", "type must be a media type such as application/pdf")
	}
	// A cached form may be stale: a refusal is judged again on fresh data,
	// as a submission's is.
	var rec FormRecord
	for _, fresh := range []bool{false, true} {
		var refusal string
		var err error
		rec, refusal, err = h.judge(ctx, q, declared, fresh)
		if err != nil {
			return UploadReserved{}, err
		}
		if refusal == "" {
			break
		}
		if fresh {
			return UploadReserved{}, &domain.ForbiddenError{Message: refusal}
		}
	}
	var random [16]byte
	if _, err := rand.Read(random[:]); err != nil {
		return UploadReserved{}, err
	}
	now := h.clock.Now()
	if declared == "" {
		declared = "application/octet-stream"
	}
	res := UploadReservation{Key: submission.NewUploadKey(hex.EncodeToString(random[:])), FormID: rec.ID, Name: q.Name,
		DeclaredType: declared, Size: q.Size, ReservedAt: now, ExpiresAt: now.Add(h.intake.settings.ReservationTTL)}
	if err := h.reservations.Reserve(ctx, res); err != nil {
		return UploadReserved{}, err
	}
	target, err := h.links.UploadTarget(ctx, ObjectUpload{Key: res.Key, ContentType: declared, Size: q.Size, Expires: res.ExpiresAt})
	if err != nil {
		return UploadReserved{}, err
	}
	return UploadReserved{Key: res.Key, Upload: target, MaxBytes: rec.Settings.UploadLimits.Effective().MaxFileBytes,
		ExpiresAt: res.ExpiresAt}, nil
}
