package application

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/submission"
)

// UploadSettings are the operator's choices for uploads.
type UploadSettings struct {
	// Scanner scans uploaded objects and multipart attachments; nil when
	// the server has none, which turns advanced uploads (GET /upload) off
	// and leaves multipart attachments to the type checks alone.
	Scanner MalwareScanner
	// ReservationTTL is how long an upload key may be uploaded to and
	// used by a submission (FORMD_UPLOAD_RESERVATION_TTL).
	ReservationTTL time.Duration
	// LinkTTL is how long the download links of a submission's uploaded
	// files work, from its acceptance (FORMD_UPLOAD_LINK_TTL).
	LinkTTL time.Duration
}

// DefaultReservationTTL and DefaultLinkTTL are the lifetimes an operator
// does not set: an hour to upload and submit, a week to download (the
// longest a presigned S3 URL may live).
const (
	DefaultReservationTTL = time.Hour
	DefaultLinkTTL        = 7 * 24 * time.Hour
)

// UploadIntake turns what a post carries into files the gates can judge:
// it sniffs multipart parts, and resolves the upload keys named in fields
// into the objects uploaded in advance, scanning one that was not scanned
// yet. It is part of the Submit use case and serves the upload routes.
type UploadIntake struct {
	sniffer      ContentSniffer
	reservations UploadReservations
	objects      ObjectStore
	links        ObjectLinks
	clock        Clock
	log          *slog.Logger
	settings     UploadSettings
}

// NewUploadIntake builds the intake; every dependency but the settings'
// scanner is required.
func NewUploadIntake(sniffer ContentSniffer, reservations UploadReservations, objects ObjectStore, links ObjectLinks, clock Clock,
	log *slog.Logger, settings UploadSettings) *UploadIntake {
	if sniffer == nil || reservations == nil || objects == nil || links == nil || clock == nil || log == nil {
		panic("application: nil dependency of UploadIntake")
	}
	if settings.ReservationTTL <= 0 {
		settings.ReservationTTL = DefaultReservationTTL
	}
	if settings.LinkTTL <= 0 {
		settings.LinkTTL = DefaultLinkTTL
	}
	return &UploadIntake{sniffer: sniffer, reservations: reservations, objects: objects, links: links, clock: clock, log: log, settings: settings}
}

// sniffParts sets what each multipart part's content is, and its declared
// type under its canonical name.
func (u *UploadIntake) sniffParts(files []UploadedFile) {
	for i := range files {
		f := &files[i]
		f.DeclaredType = u.sniffer.Canonical(f.DeclaredType)
		if f.Content != nil {
			f.Detected = u.sniffer.Sniff(f.Content[:min(len(f.Content), SniffBytes)])
		}
	}
}

// scanParts has the malware scanner scan each multipart part of a
// submission the gates accepted, when the server has a scanner, and returns
// the first part refused, or nil. A part the scanner could not scan is
// refused as an uploaded object is (fails closed): a file nobody scanned
// never reaches a recipient on a server that scans.
func (u *UploadIntake) scanParts(ctx context.Context, files []UploadedFile) *submission.File {
	if u.settings.Scanner == nil {
		return nil
	}
	for i := range files {
		f := &files[i]
		if f.Key != "" {
			continue // an uploaded object, scanned when its key was resolved
		}
		verdict, err := u.settings.Scanner.Scan(ctx, f.Name, bytes.NewReader(f.Content))
		switch {
		case err != nil:
			u.log.Warn("a multipart attachment could not be scanned", "field", f.Field, "err", err)
			f.KeyState = submission.KeyUnscanned
		case verdict.Infected:
			u.log.Warn("a multipart attachment is infected and was refused", "field", f.Field, "signature", verdict.Signature)
			f.KeyState = submission.KeyInfected
		default:
			continue
		}
		return &f.File
	}
	return nil
}

// resolved is a post's fields once its upload keys became files.
type resolved struct {
	fields  []submission.Field
	files   []UploadedFile
	uploads []ConsumedUpload
}

// resolveKeys takes the fields whose value is an upload key out of the
// forwarded fields and turns each into a file for the gates, in the state
// its reservation is in for this form.
func (u *UploadIntake) resolveKeys(ctx context.Context, formID string, fields []submission.Field) (resolved, error) {
	out := resolved{fields: fields}
	if !hasUploadKey(fields) {
		return out, nil
	}
	out.fields = make([]submission.Field, 0, len(fields))
	now := u.clock.Now()
	seen := map[string]bool{}
	for _, f := range fields {
		if !submission.IsUploadKey(f.Value) {
			out.fields = append(out.fields, f)
			continue
		}
		file := UploadedFile{File: submission.File{Field: f.Name, Key: f.Value}}
		if seen[f.Value] {
			file.KeyState = submission.KeyUsed // one object, one use
			out.files = append(out.files, file)
			continue
		}
		seen[f.Value] = true
		r, err := u.reservations.Reservation(ctx, f.Value)
		switch {
		case errors.Is(err, domain.ErrNotFound):
			file.KeyState = submission.KeyUnknown
		case err != nil:
			return resolved{}, err
		case r.FormID != formID:
			file.KeyState = submission.KeyUnknown
		case r.ConsumedBy != "":
			file.KeyState = submission.KeyUsed
		case !now.Before(r.ExpiresAt):
			file.KeyState = submission.KeyExpired
		default:
			if r, file.KeyState, err = u.ensureScanned(ctx, r); err != nil {
				return resolved{}, err
			}
			file.Name, file.DeclaredType, file.Size, file.Detected = r.Name, r.DeclaredType, r.StoredSize, r.Detected
			if file.KeyState == submission.KeyUsable {
				out.uploads = append(out.uploads, ConsumedUpload{Key: r.Key, FormID: formID, LinksExpire: now.Add(u.settings.LinkTTL)})
			}
		}
		out.files = append(out.files, file)
	}
	return out, nil
}

func hasUploadKey(fields []submission.Field) bool {
	for _, f := range fields {
		if submission.IsUploadKey(f.Value) {
			return true
		}
	}
	return false
}

// stateOf is the key state of a scanned reservation that is unused and
// unexpired.
func stateOf(r UploadReservation) submission.KeyState {
	switch {
	case r.Scan == ScanStateInfected:
		return submission.KeyInfected
	case r.StoredSize != r.Size:
		return submission.KeyWrongSize
	}
	return submission.KeyUsable
}

// errNoObject means nothing was uploaded under a key yet.
var errNoObject = errors.New("no object was uploaded under the key")

// ensureScanned scans a reservation's object unless it has a verdict, and
// says what state its key is in. A missing scanner or one without a verdict
// leaves the key unusable: uploads fail closed.
func (u *UploadIntake) ensureScanned(ctx context.Context, r UploadReservation) (UploadReservation, submission.KeyState, error) {
	if r.Scan != ScanPending {
		return r, stateOf(r), nil
	}
	scan, err := u.scan(ctx, r)
	switch {
	case errors.Is(err, errNoObject):
		return r, submission.KeyNotUploaded, nil
	case err != nil:
		u.log.Warn("an uploaded object could not be scanned", "key", r.Key, "err", err)
		return r, submission.KeyUnscanned, nil
	}
	r.Scan, r.Signature, r.Detected, r.StoredSize = ScanStateClean, "", scan.Detected, scan.Size
	if scan.Verdict.Infected {
		r.Scan, r.Signature = ScanStateInfected, scan.Verdict.Signature
	}
	return r, stateOf(r), nil
}

// scan streams the object to the scanner, sniffing its first bytes on the
// way, and records the verdict; an infected object is deleted at once.
func (u *UploadIntake) scan(ctx context.Context, r UploadReservation) (ObjectScan, error) {
	if u.settings.Scanner == nil {
		return ObjectScan{}, errors.New("no malware scanner is configured")
	}
	body, size, err := u.objects.Open(ctx, r.Key)
	if errors.Is(err, domain.ErrNotFound) {
		return ObjectScan{}, errNoObject
	}
	if err != nil {
		return ObjectScan{}, err
	}
	defer body.Close()
	head := &headBuffer{limit: SniffBytes}
	verdict, err := u.settings.Scanner.Scan(ctx, r.Name, io.TeeReader(body, head))
	if err != nil {
		return ObjectScan{}, err
	}
	s := ObjectScan{Verdict: verdict, Detected: u.sniffer.Sniff(head.Bytes()), Size: size, At: u.clock.Now()}
	if err := u.reservations.RecordScan(ctx, r.Key, s); err != nil {
		return ObjectScan{}, err
	}
	if verdict.Infected {
		u.log.Warn("an uploaded object is infected and was deleted", "key", r.Key, "signature", verdict.Signature)
		if err := u.objects.Delete(ctx, r.Key); err != nil {
			return ObjectScan{}, err
		}
	}
	return s, nil
}

// headBuffer keeps the first limit bytes written to it.
type headBuffer struct {
	bytes.Buffer
	limit int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.limit - h.Len(); room > 0 {
		h.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// attachmentsOf are the sealed descriptions of a submission's files: the
// content of multipart parts, the key of uploaded objects.
func attachmentsOf(files []UploadedFile, uploads []ConsumedUpload) []Attachment {
	expires := map[string]time.Time{}
	for _, u := range uploads {
		expires[u.Key] = u.LinksExpire
	}
	out := make([]Attachment, 0, len(files))
	for _, f := range files {
		a := Attachment{Field: f.Field, Name: f.Name, Type: f.Type(), Size: f.Size, Content: f.Content}
		if f.Key != "" {
			a.Key, a.LinksExpire = f.Key, expires[f.Key]
		}
		out = append(out, a)
	}
	return out
}

// safeObjectName is a file name fit for a Content-Disposition header and a
// mail line: no path, no control characters.
func safeObjectName(name string) string {
	if i := strings.LastIndexAny(name, "/\\"); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if name == "" {
		return "file"
	}
	return name
}
