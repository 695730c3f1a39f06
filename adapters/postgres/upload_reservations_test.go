package postgres_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/submission"
)

// uploadEnv is a group commit environment with the upload stores on it.
type uploadEnv struct {
	groupEnv
	reservations *postgres.UploadReservations
	objects      *postgres.BuiltinObjects
}

func newUploadEnv(t *testing.T) uploadEnv {
	t.Helper()
	g := newGroupEnv(t)
	return uploadEnv{groupEnv: g, reservations: postgres.NewUploadReservations(g.pool), objects: postgres.NewBuiltinObjects(g.pool)}
}

func newKey(t *testing.T) string {
	t.Helper()
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return submission.NewUploadKey(hex.EncodeToString(b[:]))
}

// now is the wall clock at PostgreSQL's precision: the commit consumes keys
// against the wall clock.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// reserve reserves a 9-byte file for formID that expires at expires.
func (u uploadEnv) reserve(t *testing.T, formID string, expires time.Time) application.UploadReservation {
	t.Helper()
	r := application.UploadReservation{Key: newKey(t), FormID: formID, Name: "cv.pdf", DeclaredType: "application/pdf", Size: 9,
		ReservedAt: expires.Add(-time.Hour), ExpiresAt: expires}
	if err := u.reservations.Reserve(u.ctx, r); err != nil {
		t.Fatalf("Reserve: %v", err)
	}
	return r
}

// cleanKey is a key of the env's form, uploaded and scanned clean, that
// expires in an hour.
func (u uploadEnv) cleanKey(t *testing.T) string {
	t.Helper()
	r := u.reserve(t, u.formID, now().Add(time.Hour))
	u.scanned(t, r.Key, application.ScanClean)
	return r.Key
}

func (u uploadEnv) scanned(t *testing.T, key string, v application.ScanVerdict) {
	t.Helper()
	if err := u.reservations.RecordScan(u.ctx, key, application.ObjectScan{Verdict: v, Detected: []string{"application/pdf"}, Size: 9, At: now()}); err != nil {
		t.Fatalf("RecordScan: %v", err)
	}
}

// using is s using the upload keys, whose links expire at linksExpire.
func (u uploadEnv) using(s application.AcceptedSubmission, linksExpire time.Time, keys ...string) application.AcceptedSubmission {
	for _, k := range keys {
		s.Uploads = append(s.Uploads, application.ConsumedUpload{Key: k, FormID: s.FormID, LinksExpire: linksExpire})
	}
	return s
}

func (u uploadEnv) reservation(t *testing.T, key string) application.UploadReservation {
	t.Helper()
	r, err := u.reservations.Reservation(u.ctx, key)
	if err != nil {
		t.Fatalf("Reservation(%s): %v", key, err)
	}
	return r
}

// wantUnavailable checks that err refuses the key.
func wantUnavailable(t *testing.T, what string, err error, key string) {
	t.Helper()
	var unavailable *application.UploadUnavailableError
	if !errors.As(err, &unavailable) || unavailable.Key != key {
		t.Errorf("%s: answered %v, want UploadUnavailableError naming %s", what, err, key)
	}
}

func TestUploadReservationsRoundTrip(t *testing.T) {
	t.Parallel()
	u := newUploadEnv(t)
	if _, err := u.reservations.Reservation(u.ctx, newKey(t)); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("Reservation of a key never reserved: %v, want ErrNotFound", err)
	}
	at := now()
	want := u.reserve(t, u.formID, at.Add(time.Hour))
	if got := u.reservation(t, want.Key); !got.ReservedAt.Equal(want.ReservedAt) || !got.ExpiresAt.Equal(want.ExpiresAt) ||
		got.Key != want.Key || got.FormID != want.FormID || got.Name != want.Name || got.DeclaredType != want.DeclaredType ||
		got.Size != want.Size || got.Scan != application.ScanPending || !got.UploadedAt.IsZero() || got.StoredSize != 0 || got.ConsumedBy != "" {
		t.Fatalf("Reservation = %+v, want %+v", got, want)
	}

	if err := u.reservations.RecordUpload(u.ctx, want.Key, 9, at); err != nil {
		t.Fatalf("RecordUpload: %v", err)
	}
	if got := u.reservation(t, want.Key); !got.UploadedAt.Equal(at) || got.StoredSize != 9 || got.Scan != application.ScanPending {
		t.Fatalf("after RecordUpload: %+v", got)
	}
	u.scanned(t, want.Key, application.ScanClean)
	if got := u.reservation(t, want.Key); got.Scan != application.ScanStateClean || got.Signature != "" ||
		!slices.Equal(got.Detected, []string{"application/pdf"}) || got.StoredSize != 9 {
		t.Fatalf("after a clean scan: %+v", got)
	}
	// A new upload replaces the object: its verdict goes with the old one.
	if err := u.reservations.RecordUpload(u.ctx, want.Key, 8, at.Add(time.Minute)); err != nil {
		t.Fatalf("RecordUpload again: %v", err)
	}
	if got := u.reservation(t, want.Key); got.Scan != application.ScanPending || got.StoredSize != 8 || len(got.Detected) != 0 {
		t.Fatalf("a new upload kept the old verdict: %+v", got)
	}
	u.scanned(t, want.Key, application.ScanInfected("Eicar-Test-Signature"))
	if got := u.reservation(t, want.Key); got.Scan != application.ScanStateInfected || got.Signature != "Eicar-Test-Signature" {
		t.Fatalf("after an infected scan: %+v", got)
	}

	if err := u.reservations.RecordUpload(u.ctx, want.Key, 9, want.ExpiresAt); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("RecordUpload at the expiry: %v, want ErrNotFound", err)
	}
	if err := u.reservations.RecordUpload(u.ctx, newKey(t), 9, at); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("RecordUpload of a key never reserved: %v, want ErrNotFound", err)
	}
	consumed := u.cleanKey(t)
	if _, errs, err := postgres.Commit(u.subs, u.ctx, []application.AcceptedSubmission{u.using(u.accepted(1, ""), at.Add(time.Hour), consumed)}); err != nil || errs[0] != nil {
		t.Fatalf("Commit: %v %v", err, errs)
	}
	if err := u.reservations.RecordUpload(u.ctx, consumed, 9, at); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("RecordUpload of a consumed key: %v, want ErrNotFound", err)
	}

	if err := u.reservations.Forget(u.ctx, want.Key); err != nil {
		t.Fatalf("Forget: %v", err)
	}
	if _, err := u.reservations.Reservation(u.ctx, want.Key); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("Reservation after Forget: %v, want ErrNotFound", err)
	}
	if err := u.reservations.Forget(u.ctx, want.Key); err != nil {
		t.Errorf("Forget of a forgotten key: %v", err)
	}
}

func TestUploadsDueForCleanup(t *testing.T) {
	t.Parallel()
	u := newUploadEnv(t)
	at := now()
	unusedExpired := u.reserve(t, u.formID, at.Add(-time.Minute)).Key
	unusedLive := u.reserve(t, u.formID, at.Add(time.Hour)).Key

	// Used keys: consumed by submissions whose links expire at linksExpire.
	use := func(linksExpire time.Time) (string, application.AcceptedSubmission) {
		key := u.cleanKey(t)
		s := u.using(u.accepted(1, ""), linksExpire, key)
		if _, errs, err := postgres.Commit(u.subs, u.ctx, []application.AcceptedSubmission{s}); err != nil || errs[0] != nil {
			t.Fatalf("Commit: %v %v", err, errs)
		}
		return key, s
	}
	linksExpiredPayloadKept, _ := use(at.Add(-time.Minute))
	linksExpiredPayloadGone, gone := use(at.Add(-time.Minute))
	linksLivePayloadGone, goneToo := use(at.Add(time.Hour))
	if _, err := u.pool.Exec(u.ctx, `DELETE FROM submission_payloads WHERE submission_id = ANY($1::uuid[])`,
		[]string{gone.Accepted.SubmissionID, goneToo.Accepted.SubmissionID}); err != nil {
		t.Fatal(err)
	}

	due, err := u.reservations.DueForCleanup(u.ctx, at, 100)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(due)
	want := []string{unusedExpired, linksExpiredPayloadGone}
	slices.Sort(want)
	if !slices.Equal(due, want) {
		t.Errorf("due %v, want the expired unused key %s and the used one whose links expired and payload is gone %s (not %s, %s, %s)",
			due, unusedExpired, linksExpiredPayloadGone, unusedLive, linksExpiredPayloadKept, linksLivePayloadGone)
	}

	later, err := u.reservations.DueForCleanup(u.ctx, at.Add(2*time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{unusedLive, linksLivePayloadGone} {
		if !slices.Contains(later, k) {
			t.Errorf("due two hours later %v, want %s among them", later, k)
		}
	}
	if slices.Contains(later, linksExpiredPayloadKept) {
		t.Errorf("due two hours later %v: a used key whose payload is kept is not due", later)
	}
	if one, err := u.reservations.DueForCleanup(u.ctx, at.Add(2*time.Hour), 1); err != nil || len(one) > 2 || len(one) == 0 {
		t.Errorf("DueForCleanup with limit 1 = %v, %v", one, err)
	}
}

func TestBuiltinObjectsStoreExactlyTheAnnouncedSize(t *testing.T) {
	t.Parallel()
	u := newUploadEnv(t)
	key := newKey(t)
	if _, _, err := u.objects.Open(u.ctx, key); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("Open of nothing: %v, want ErrNotFound", err)
	}
	for name, body := range map[string]string{"short": "%PDF-1.", "long": "%PDF-1.4\n\n"} {
		if err := u.objects.Put(u.ctx, key, strings.NewReader(body), 9, "application/pdf"); err == nil {
			t.Errorf("Put of a %s body succeeded", name)
		} else if strings.Contains(err.Error(), "PDF") {
			t.Errorf("Put's error %q shows the object's bytes", err)
		}
		if _, _, err := u.objects.Open(u.ctx, key); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("after a %s Put, Open: %v, want ErrNotFound", name, err)
		}
	}
	if err := u.objects.Put(u.ctx, key, strings.NewReader("%PDF-1.4\n"), 9, "application/pdf"); err != nil {
		t.Fatalf("Put: %v", err)
	}
	body, size, err := u.objects.Open(u.ctx, key)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	got, err := io.ReadAll(body)
	body.Close()
	if err != nil || size != 9 || !bytes.Equal(got, []byte("%PDF-1.4\n")) {
		t.Fatalf("Open = %q (%d bytes), %v", got, size, err)
	}
	// An object is never replaced: the bytes scanned are the bytes delivered.
	if err := u.objects.Put(u.ctx, key, strings.NewReader("MZ\x90\x00evil!"), 9, "application/pdf"); !errors.Is(err, application.ErrObjectExists) {
		t.Errorf("Put over an object: %v, want ErrObjectExists", err)
	}
	if body, _, err := u.objects.Open(u.ctx, key); err != nil {
		t.Fatal(err)
	} else if got, _ := io.ReadAll(body); string(got) != "%PDF-1.4\n" {
		t.Errorf("the object was replaced by %q", got)
	}
	if err := u.objects.Delete(u.ctx, key); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	// Once deleted (an infected object), the key takes a new upload.
	if err := u.objects.Put(u.ctx, key, strings.NewReader("%PDF-1.5\n"), 9, "application/pdf"); err != nil {
		t.Fatalf("Put after Delete: %v", err)
	}
	if err := u.objects.Delete(u.ctx, key); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, _, err := u.objects.Open(u.ctx, key); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("Open after Delete: %v, want ErrNotFound", err)
	}
	if err := u.objects.Delete(u.ctx, key); err != nil {
		t.Errorf("Delete of nothing: %v", err)
	}
}
