package application

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/formd/formd/domain"
)

// prefixSniffer tells a few signatures apart, enough for the tests.
type prefixSniffer struct{}

func (prefixSniffer) Sniff(head []byte) []string {
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return []string{"application/pdf", "application/octet-stream"}
	case bytes.HasPrefix(head, []byte("MZ")):
		return []string{"application/vnd.microsoft.portable-executable", "application/octet-stream"}
	}
	return []string{"text/plain", "application/octet-stream"}
}

func (prefixSniffer) Canonical(declared string) string {
	t, _, _ := strings.Cut(declared, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// memReservations keeps reservations in memory.
type memReservations struct {
	mu   sync.Mutex
	byID map[string]UploadReservation
}

func (m *memReservations) Reserve(_ context.Context, r UploadReservation) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byID == nil {
		m.byID = map[string]UploadReservation{}
	}
	m.byID[r.Key] = r
	return nil
}

func (m *memReservations) Reservation(_ context.Context, key string) (UploadReservation, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.byID[key]
	if !ok {
		return UploadReservation{}, domain.ErrNotFound
	}
	return r, nil
}

func (m *memReservations) RecordUpload(_ context.Context, key string, size int64, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.byID[key]
	if !ok || r.ConsumedBy != "" || !at.Before(r.ExpiresAt) {
		return domain.ErrNotFound
	}
	r.UploadedAt, r.StoredSize, r.Scan = at, size, ScanPending
	m.byID[key] = r
	return nil
}

func (m *memReservations) RecordScan(_ context.Context, key string, s ObjectScan) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.byID[key]
	r.Scan, r.Signature, r.Detected, r.StoredSize = ScanStateClean, "", s.Detected, s.Size
	if s.Verdict.Infected {
		r.Scan, r.Signature = ScanStateInfected, s.Verdict.Signature
	}
	m.byID[key] = r
	return nil
}

func (m *memReservations) DueForCleanup(context.Context, time.Time, int) ([]string, error) {
	return nil, nil
}

func (m *memReservations) Forget(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.byID, key)
	return nil
}

// memObjects keeps objects in memory.
type memObjects struct {
	mu      sync.Mutex
	content map[string][]byte
}

func (m *memObjects) Put(_ context.Context, key string, r io.Reader, size int64, _ string) error {
	b, err := io.ReadAll(io.LimitReader(r, size+1))
	if err != nil {
		return err
	}
	if int64(len(b)) != size {
		return io.ErrUnexpectedEOF
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.content == nil {
		m.content = map[string][]byte{}
	}
	if _, ok := m.content[key]; ok {
		return ErrObjectExists
	}
	m.content[key] = b
	return nil
}

func (m *memObjects) Open(_ context.Context, key string) (io.ReadCloser, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.content[key]
	if !ok {
		return nil, 0, domain.ErrNotFound
	}
	return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
}

func (m *memObjects) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.content, key)
	return nil
}

// plainLinks signs nothing: a link is its operation, key and expiry.
type plainLinks struct{}

func (plainLinks) UploadTarget(_ context.Context, u ObjectUpload) (UploadTarget, error) {
	return UploadTarget{Method: "PUT", URL: "https://formd.test/upload/objects/" + u.Key, Headers: map[string]string{"Content-Type": u.ContentType}}, nil
}

func (plainLinks) DownloadURL(_ context.Context, d ObjectDownload) (string, error) {
	return "https://formd.test/upload/objects/" + d.Key + "?expires=" + d.Expires.UTC().Format(time.RFC3339), nil
}

func (plainLinks) Verify(_ ObjectOp, _ string, _ time.Time, signature string) bool {
	return signature == "ok"
}

// infectedMarker is what scanFake calls infected.
const infectedMarker = "EICAR"

// scanFake finds the infected marker, or fails when err is set.
type scanFake struct{ err error }

func (s scanFake) Scan(_ context.Context, _ string, r io.Reader) (ScanVerdict, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return ScanVerdict{}, err
	}
	if s.err != nil {
		return ScanVerdict{}, s.err
	}
	if bytes.Contains(b, []byte(infectedMarker)) {
		return ScanInfected("Eicar-Test-Signature"), nil
	}
	return ScanClean, nil
}

// noUploads is an intake with empty stores and no scanner.
func noUploads() *UploadIntake {
	return NewUploadIntake(prefixSniffer{}, &memReservations{}, &memObjects{}, plainLinks{}, fixedClock{}, slog.New(slog.DiscardHandler), UploadSettings{})
}
