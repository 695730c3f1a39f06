package postgres_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
)

// withEmailHash is s with hash as its email field's value hash.
func withEmailHash(s application.AcceptedSubmission, hash string) application.AcceptedSubmission {
	s.Accepted.ValueHashes = map[string]string{"email": hash}
	return s
}

// An erasure shreds an archived payload at once, as the retention sweep
// would, whatever its retention or a failed delivery's hold; it waits for
// deliveries in progress, finds by email hash only the form's archived
// submissions, and says not found for anything else.
func TestErasureShredsArchivedPayloadsAtOnceOnceTheirDeliveriesAreFinal(t *testing.T) {
	g := newGroupEnv(t)
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore())
	now := time.Now().UTC()
	year := 365 * 24 * time.Hour
	delivered := withEmailHash(archivedFor(g.accepted(g.version, ""), now.Add(year)), "ada")
	failed := withEmailHash(archivedFor(g.accepted(g.version, ""), now.Add(year)), "ada-old-key")
	inFlight := withEmailHash(archivedFor(g.accepted(g.version, ""), now.Add(year)), "ada")
	other := withEmailHash(archivedFor(g.accepted(g.version, ""), now.Add(year)), "bob")
	plain := withEmailHash(g.accepted(g.version, ""), "ada")
	g.accept(t, delivered, failed, inFlight, other, plain)
	if err := store.RecordAttempts(g.ctx, []application.Attempt{
		{Queued: delivered.Queued[0], Number: 1, Outcome: delivery.Succeeded{Attempt: 1, At: now}},
		{Queued: failed.Queued[0], Number: 1, Outcome: delivery.GaveUp{Attempts: 1, Reason: "550", At: now}},
		{Queued: other.Queued[0], Number: 1, Outcome: delivery.Succeeded{Attempt: 1, At: now}},
	}); err != nil {
		t.Fatal(err)
	}
	hashes := []string{"ada", "ada-old-key"}

	if err := store.EraseArchivedSubmission(g.ctx, g.formID, inFlight.Accepted.SubmissionID, now); !errors.Is(err, application.ErrDeliveriesPending) {
		t.Errorf("erasing one with a delivery in progress: %v, want ErrDeliveriesPending", err)
	}
	for name, id := range map[string]string{"unarchived": plain.Accepted.SubmissionID, "unknown": uuid.NewString(), "not an id": "x"} {
		if err := store.EraseArchivedSubmission(g.ctx, g.formID, id, now); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("erasing an %s submission: %v, want not found", name, err)
		}
	}
	if err := store.EraseArchivedSubmission(g.ctx, uuid.NewString(), other.Accepted.SubmissionID, now); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("erasing through another form: %v, want not found", err)
	}
	if n, err := store.EraseArchivedByValueHash(g.ctx, uuid.NewString(), "email", hashes, 10, now); err != nil || n != 0 {
		t.Errorf("erasing by hash through another form: %d, %v, want 0", n, err)
	}

	n, err := store.EraseArchivedByValueHash(g.ctx, g.formID, "email", hashes, 1, now)
	if err != nil || n != 1 {
		t.Fatalf("first batch of one: %d, %v", n, err)
	}
	if n, err = store.EraseArchivedByValueHash(g.ctx, g.formID, "email", hashes, 1, now); err != nil || n != 1 {
		t.Fatalf("second batch of one: %d, %v", n, err)
	}
	if n, err = store.EraseArchivedByValueHash(g.ctx, g.formID, "email", hashes, 1, now); err != nil || n != 0 {
		t.Fatalf("nothing left but the one in flight: %d, %v", n, err)
	}
	if p, err := store.PendingArchivedByValueHash(g.ctx, g.formID, "email", hashes); err != nil || p != 1 {
		t.Errorf("pending: %d, %v, want the one in flight", p, err)
	}
	for name, c := range map[string]struct {
		s    application.AcceptedSubmission
		want archivedPayloadState
	}{
		"delivered":                {delivered, archivedPayloadState{redacted: 1}},
		"failed, held for a retry": {failed, archivedPayloadState{redacted: 1}},
		"in flight":                {inFlight, archivedPayloadState{stored: true, archived: true}},
		"another address":          {other, archivedPayloadState{stored: true, archived: true}},
		"unarchived, in flight":    {plain, archivedPayloadState{stored: true}},
	} {
		if got := g.payloadState(t, c.s); got != c.want {
			t.Errorf("%s: %+v, want %+v", name, got, c.want)
		}
	}

	if err := store.RecordAttempts(g.ctx, []application.Attempt{
		{Queued: inFlight.Queued[0], Number: 1, Outcome: delivery.Succeeded{Attempt: 1, At: now}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := store.EraseArchivedSubmission(g.ctx, g.formID, inFlight.Accepted.SubmissionID, now); err != nil {
		t.Fatalf("erasing it once delivered: %v", err)
	}
	if got := g.payloadState(t, inFlight); got != (archivedPayloadState{redacted: 1}) {
		t.Errorf("erased by id: %+v", got)
	}
	if err := store.EraseArchivedSubmission(g.ctx, g.formID, inFlight.Accepted.SubmissionID, now); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("erasing it twice: %v, want not found", err)
	}
}
