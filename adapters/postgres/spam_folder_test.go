package postgres_test

import (
	"errors"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

// heldFor is s as the spam gate holds it: its deliveries planned in its
// accepted event, none queued, its payload held until until.
func heldFor(s application.AcceptedSubmission, until time.Time) application.AcceptedSubmission {
	s.Queued, s.HeldUntil, s.Accepted.Held = nil, until, true
	return s
}

// A held submission has a sealed payload and no delivery; the folder lists
// it newest first and counts it; a release writes the deliveries its
// accepted event planned, under their ids, and makes the payload an
// ordinary one (kept by the archive when asked); spam shreds it at once,
// and the sweep shreds one whose hold ended, each with submission.redacted.
func TestTheSpamFolderHoldsReleasesAndShreds(t *testing.T) {
	g := newGroupEnv(t)
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore())
	now := time.Now().UTC()
	day := 24 * time.Hour
	released := heldFor(g.accepted(g.version, ""), now.Add(30*day))
	archivedOnRelease := heldFor(g.accepted(g.version, ""), now.Add(30*day))
	confirmed := heldFor(g.accepted(g.version, ""), now.Add(30*day))
	expired := heldFor(g.accepted(g.version, ""), now.Add(day))
	plain := g.accepted(g.version, "")
	g.accept(t, released, archivedOnRelease, confirmed, expired, plain)

	deliveriesOf := func(s application.AcceptedSubmission) int {
		t.Helper()
		var n int
		if err := g.pool.QueryRow(g.ctx, `SELECT count(*) FROM deliveries WHERE submission_id = $1 AND status = 'queued'`,
			s.Accepted.SubmissionID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := deliveriesOf(released); n != 0 {
		t.Fatalf("a held submission has %d deliveries, want none", n)
	}
	if n, err := store.HeldCount(g.ctx, g.formID); err != nil || n != 4 {
		t.Fatalf("count = %d, %v; want 4 (the plain submission is not held)", n, err)
	}
	page, err := store.HeldPage(g.ctx, g.formID, nil, 2)
	if err != nil || len(page) != 2 {
		t.Fatalf("first page: %d, %v", len(page), err)
	}
	rest, err := store.HeldPage(g.ctx, g.formID, &application.ArchiveCursor{At: page[1].HeldAt, ID: page[1].SubmissionID}, 10)
	if err != nil || len(rest) != 2 {
		t.Fatalf("second page: %d, %v", len(rest), err)
	}
	one, err := store.HeldSubmission(g.ctx, g.formID, released.Accepted.SubmissionID)
	if err != nil || one.RequestID != released.Accepted.RequestID || string(one.Sealed.Ciphertext) != string(released.Payload.Ciphertext) ||
		!one.Until.Equal(released.HeldUntil.Truncate(time.Microsecond)) {
		t.Fatalf("held submission = %+v, %v", one, err)
	}

	queued, err := store.Release(g.ctx, g.formID, released.Accepted.SubmissionID, time.Time{}, now)
	if err != nil || len(queued) != 1 || queued[0].DeliveryID != released.Accepted.Deliveries[0].ID {
		t.Fatalf("release = %+v, %v; want the planned delivery under its id", queued, err)
	}
	if n := deliveriesOf(released); n != 1 {
		t.Fatalf("released: %d queued deliveries, want 1", n)
	}
	if got := g.payloadState(t, released); got != (archivedPayloadState{stored: true}) {
		t.Fatalf("released payload: %+v, want an ordinary one", got)
	}
	if _, err := store.Release(g.ctx, g.formID, released.Accepted.SubmissionID, time.Time{}, now); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("a second release: %v, want ErrNotFound", err)
	}
	if _, err := store.Release(g.ctx, g.formID, plain.Accepted.SubmissionID, time.Time{}, now); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("releasing a submission never held: %v, want ErrNotFound", err)
	}
	if _, err := store.Release(g.ctx, g.formID, archivedOnRelease.Accepted.SubmissionID, now.Add(365*day), now); err != nil {
		t.Fatal(err)
	}
	if got := g.payloadState(t, archivedOnRelease); got != (archivedPayloadState{stored: true, archived: true}) {
		t.Fatalf("released into the archive: %+v", got)
	}

	if err := store.ShredHeld(g.ctx, g.formID, confirmed.Accepted.SubmissionID, now); err != nil {
		t.Fatal(err)
	}
	if got := g.payloadState(t, confirmed); got != (archivedPayloadState{redacted: 1}) {
		t.Fatalf("confirmed spam: %+v, want shredded with submission.redacted", got)
	}
	if err := store.ShredHeld(g.ctx, g.formID, confirmed.Accepted.SubmissionID, now); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("shredding it again: %v, want ErrNotFound", err)
	}

	if n, err := store.ShredExpiredHeld(g.ctx, now, 10); err != nil || n != 0 {
		t.Fatalf("sweep before any hold ended: %d, %v", n, err)
	}
	if n, err := store.ShredExpiredHeld(g.ctx, now.Add(2*day), 10); err != nil || n != 1 {
		t.Fatalf("sweep after a day's hold ended: %d, %v; want 1", n, err)
	}
	if got := g.payloadState(t, expired); got != (archivedPayloadState{redacted: 1}) {
		t.Fatalf("expired hold: %+v", got)
	}
	if n, err := store.HeldCount(g.ctx, g.formID); err != nil || n != 0 {
		t.Fatalf("count at the end = %d, %v", n, err)
	}
}
