package postgres_test

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
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

// A submission's commit consumes its clean keys, on either path; a key
// consumed once is refused to every later submission, which commits
// nothing.
func TestTheGroupCommitConsumesUploadKeysOnce(t *testing.T) {
	t.Parallel()
	for _, path := range []struct {
		name   string
		commit postgres.CommitPath
	}{{"pipelined", postgres.CommitPipelined}, {"careful", postgres.CommitCarefully}} {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			u := newUploadEnv(t)
			links := now().Add(7 * 24 * time.Hour)
			key, other := u.cleanKey(t), u.cleanKey(t)
			first := u.using(u.accepted(1, ""), links, key, other)
			if _, errs, err := path.commit(u.subs, u.ctx, []application.AcceptedSubmission{first}); err != nil || errs[0] != nil {
				t.Fatalf("%s: %v %v", path.name, err, errs)
			}
			if !u.committed(t, first) {
				t.Fatal("the submission was not committed")
			}
			for _, k := range []string{key, other} {
				if r := u.reservation(t, k); r.ConsumedBy != first.Accepted.SubmissionID || !r.LinksExpire.Equal(links) {
					t.Errorf("reservation %+v: want it consumed by %s with links until %s", r, first.Accepted.SubmissionID, links)
				}
			}

			again := u.using(u.accepted(1, "retry-key"), links, key)
			_, errs, err := postgres.Commit(u.subs, u.ctx, []application.AcceptedSubmission{again})
			if err != nil {
				t.Fatal(err)
			}
			wantUnavailable(t, "a second submission with the key", errs[0], key)
			if u.committed(t, again) {
				t.Error("the refused submission was committed")
			}
			if stored, err := u.subs.IdempotentResponse(u.ctx, u.formID, "retry-key"); err != nil || stored != nil {
				t.Errorf("the refused submission's Idempotency-Key answers: %+v, %v", stored, err)
			}
			if r := u.reservation(t, key); r.ConsumedBy != first.Accepted.SubmissionID {
				t.Errorf("the key changed hands: %+v", r)
			}
		})
	}
}

// A key is refused to a submission of another form, once it expired, and
// until it is scanned clean; the submission commits nothing, and a batch
// sharing the commit with it is not held back.
func TestTheGroupCommitRefusesUnavailableUploadKeys(t *testing.T) {
	t.Parallel()
	u := newUploadEnv(t)
	_, otherForm := u.seedForm(t)
	links := now().Add(time.Hour)
	ofOtherForm := u.reserve(t, otherForm, now().Add(time.Hour)).Key
	u.scanned(t, ofOtherForm, application.ScanClean)
	expired := u.reserve(t, u.formID, now().Add(-time.Second)).Key
	u.scanned(t, expired, application.ScanClean)
	unscanned := u.reserve(t, u.formID, now().Add(time.Hour)).Key
	infected := u.reserve(t, u.formID, now().Add(time.Hour)).Key
	u.scanned(t, infected, application.ScanInfected("Eicar-Test-Signature"))
	for name, key := range map[string]string{
		"a key of another form": ofOtherForm, "an expired key": expired, "an unscanned key": unscanned, "an infected key": infected,
		"a key never reserved": newKey(t),
	} {
		t.Run(name, func(t *testing.T) {
			clean := u.cleanKey(t)
			// The refused submission also names a clean key: it must not be
			// consumed by a submission that does not commit.
			refused := u.using(u.accepted(1, ""), links, clean, key)
			bystander := u.accepted(1, "")
			if _, _, err := postgres.CommitPipelined(u.subs, u.ctx, []application.AcceptedSubmission{bystander, refused}); err == nil {
				t.Fatal("CommitPipelined succeeded; the careful path must sort this batch out")
			}
			_, errs, err := postgres.Commit(u.subs, u.ctx, []application.AcceptedSubmission{bystander, refused})
			if err != nil {
				t.Fatal(err)
			}
			if errs[0] != nil {
				t.Errorf("the bystander was refused: %v", errs[0])
			}
			wantUnavailable(t, name, errs[1], key)
			if !u.committed(t, bystander) || u.committed(t, refused) {
				t.Error("want the bystander committed and the refused submission not")
			}
			if r := u.reservation(t, clean); r.ConsumedBy != "" {
				t.Errorf("the refused submission consumed its other key: %+v", r)
			}
		})
	}
	if r := u.reservation(t, ofOtherForm); r.ConsumedBy != "" {
		t.Errorf("the other form's key was consumed: %+v", r)
	}
}

// Two submissions naming one key in one batch: exactly one commits.
func TestTwoSubmissionsOfOneBatchCannotBothConsumeAKey(t *testing.T) {
	t.Parallel()
	for _, path := range []struct {
		name   string
		commit postgres.CommitPath
	}{{"careful", postgres.CommitCarefully}, {"fallback", postgres.Commit}} {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			u := newUploadEnv(t)
			key := u.cleanKey(t)
			links := now().Add(time.Hour)
			batch := []application.AcceptedSubmission{u.using(u.accepted(1, ""), links, key), u.using(u.accepted(1, ""), links, key)}
			_, errs, err := path.commit(u.subs, u.ctx, batch)
			if err != nil {
				t.Fatal(err)
			}
			if errs[0] != nil {
				t.Errorf("the first submission was refused: %v", errs[0])
			}
			wantUnavailable(t, "the second submission", errs[1], key)
			if !u.committed(t, batch[0]) || u.committed(t, batch[1]) {
				t.Error("want the first submission committed and the second not")
			}
			if r := u.reservation(t, key); r.ConsumedBy != batch[0].Accepted.SubmissionID {
				t.Errorf("reservation %+v, want it consumed by the first", r)
			}
		})
	}
	t.Run("pipelined", func(t *testing.T) {
		t.Parallel()
		u := newUploadEnv(t)
		key := u.cleanKey(t)
		links := now().Add(time.Hour)
		batch := []application.AcceptedSubmission{u.using(u.accepted(1, ""), links, key), u.using(u.accepted(1, ""), links, key)}
		if _, _, err := postgres.CommitPipelined(u.subs, u.ctx, batch); err == nil {
			t.Error("CommitPipelined committed two submissions consuming one key; the careful path must sort it out")
		}
	})
}

// Many submissions racing for one key through the store's queue: exactly
// one wins, every other is refused with the key and commits nothing.
func TestSubmissionsRacingForAnUploadKeyOneWins(t *testing.T) {
	t.Parallel()
	const n = 60
	race := func(t *testing.T, u uploadEnv, store *postgres.SubmissionStore, key string, enqueued func()) {
		t.Helper()
		links := now().Add(time.Hour)
		subs := make([]application.AcceptedSubmission, n)
		errs := make([]error, n)
		for i := range subs {
			subs[i] = u.using(u.accepted(1, ""), links, key)
		}
		var wg sync.WaitGroup
		for i := range subs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = store.Accept(u.ctx, subs[i])
			}()
		}
		enqueued()
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("submissions %d and %d both consumed the key", winner, i)
			case err == nil:
				winner = i
			default:
				wantUnavailable(t, "a losing submission", err, key)
			}
			if u.committed(t, subs[i]) != (err == nil) {
				t.Fatalf("submission %d: committed and answered disagree (%v)", i, err)
			}
		}
		if winner < 0 {
			t.Fatal("no submission consumed the key")
		}
		if r := u.reservation(t, key); r.ConsumedBy != subs[winner].Accepted.SubmissionID {
			t.Errorf("reservation %+v, want it consumed by the winner %s", r, subs[winner].Accepted.SubmissionID)
		}
	}
	t.Run("as they come", func(t *testing.T) {
		t.Parallel()
		u := newUploadEnv(t)
		race(t, u, u.subs, u.cleanKey(t), func() {})
	})
	// The store's one lane is held on a locked reservation while all the
	// submissions queue up: they are committed as one batch.
	t.Run("in one batch", func(t *testing.T) {
		t.Parallel()
		u := newUploadEnv(t)
		store, closeStore := postgres.NewSubmissionStoreWithLanes(u.pool, postgres.NewEventStore(), slog.New(slog.NewTextHandler(io.Discard, nil)), 1)
		t.Cleanup(closeStore)
		held := u.cleanKey(t)
		blocker, err := u.pool.Begin(u.ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer blocker.Rollback(u.ctx) //nolint:errcheck
		if _, err := blocker.Exec(u.ctx, `SELECT 1 FROM upload_reservations WHERE key = $1 FOR UPDATE`, held); err != nil {
			t.Fatal(err)
		}
		decoy := make(chan error, 1)
		go func() {
			_, err := store.Accept(u.ctx, u.using(u.accepted(1, ""), now().Add(time.Hour), held))
			decoy <- err
		}()
		u.waitFor(t, "the lane's commit to wait for the held reservation", func() bool {
			var waiting int
			err := u.pool.QueryRow(u.ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting)
			return err == nil && waiting > 0
		})
		race(t, u, store, u.cleanKey(t), func() {
			u.waitFor(t, "every submission to queue", func() bool { return postgres.QueuedSubmissions(store) == n })
			if err := blocker.Rollback(u.ctx); err != nil {
				t.Error(err)
			}
		})
		if err := <-decoy; err != nil {
			t.Errorf("the decoy submission: %v", err)
		}
	})
}

// waitFor polls cond until it holds, failing when the test's context ends.
func (u uploadEnv) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if u.ctx.Err() != nil {
			t.Fatalf("gave up waiting for %s", what)
		}
		runtime.Gosched()
	}
}

// A submission its quota refuses gives its keys back for another to use.
func TestASubmissionRefusedByItsQuotaGivesItsUploadKeysBack(t *testing.T) {
	t.Parallel()
	u := newUploadEnv(t)
	quotas := account.Quotas{Free: 3, Pro: 100, Lifetime: 100}
	u.setUsed(t, 2)
	key, other := u.cleanKey(t), u.cleanKey(t)
	links := now().Add(time.Hour)
	batch := []application.AcceptedSubmission{u.charged("", quotas), u.using(u.charged("", quotas), links, key, other)}
	_, errs, err := postgres.Commit(u.subs, u.ctx, batch)
	var exhausted *application.QuotaExhaustedError
	if err != nil || errs[0] != nil || !errors.As(errs[1], &exhausted) {
		t.Fatalf("Commit: %v %v, want the first committed and the second refused by the quota", err, errs)
	}
	if u.committed(t, batch[1]) {
		t.Fatal("the refused submission was committed")
	}
	for _, k := range []string{key, other} {
		if r := u.reservation(t, k); r.ConsumedBy != "" || !r.LinksExpire.IsZero() {
			t.Errorf("reservation %+v: the refused submission kept the key", r)
		}
	}
	u.setUsed(t, 0)
	later := u.using(u.charged("", quotas), links, key, other)
	if _, errs, err := postgres.Commit(u.subs, u.ctx, []application.AcceptedSubmission{later}); err != nil || errs[0] != nil {
		t.Fatalf("a later submission with the keys given back: %v %v", err, errs)
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
