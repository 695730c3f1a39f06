package postgres_test

import (
	"sync"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
)

// archivedPayloadState is what is stored of a submission's payload: whether
// it is, its holds, and how many submission.redacted it has.
type archivedPayloadState struct {
	stored, held, archived bool
	redacted               int
}

func (g groupEnv) payloadState(t *testing.T, s application.AcceptedSubmission) archivedPayloadState {
	t.Helper()
	var st archivedPayloadState
	err := g.pool.QueryRow(g.ctx, `SELECT EXISTS (SELECT 1 FROM submission_payloads WHERE submission_id = $1),
		coalesce((SELECT keep_until IS NOT NULL FROM submission_payloads WHERE submission_id = $1), false),
		coalesce((SELECT archived_until IS NOT NULL FROM submission_payloads WHERE submission_id = $1), false),
		(SELECT count(*) FROM events WHERE stream_id = $1 AND event_type = 'submission.redacted.v1')`, s.Accepted.SubmissionID).
		Scan(&st.stored, &st.held, &st.archived, &st.redacted)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// archivedFor is s kept by its form's archive until until.
func archivedFor(s application.AcceptedSubmission, until time.Time) application.AcceptedSubmission {
	s.ArchiveUntil = until
	return s
}

// A payload the archive keeps outlives its final delivery, failed or not,
// until its retention ends, when the archive sweep shreds it and records
// submission.redacted as a final delivery does; the failed-delivery sweep
// never shreds it before. A payload without the archive is shredded at its
// final delivery, as before.
func TestAnArchivedPayloadOutlivesItsDeliveriesUntilItsRetentionEnds(t *testing.T) {
	g := newGroupEnv(t)
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore())
	now := time.Now().UTC()
	day := 24 * time.Hour
	plain := g.accepted(g.version, "")
	archived := archivedFor(g.accepted(g.version, ""), now.Add(day))
	archivedFailed := archivedFor(g.accepted(g.version, ""), now.Add(30*day))
	shortArchiveFailed := archivedFor(g.accepted(g.version, ""), now.Add(day))
	g.accept(t, plain, archived, archivedFailed, shortArchiveFailed)
	gaveUp := delivery.GaveUp{Attempts: 1, Reason: "550 no such user", At: now}
	if err := store.RecordAttempts(g.ctx, []application.Attempt{
		{Queued: plain.Queued[0], Number: 1, Outcome: delivery.Succeeded{Attempt: 1, At: now}},
		{Queued: archived.Queued[0], Number: 1, Outcome: delivery.Succeeded{Attempt: 1, At: now}},
		{Queued: archivedFailed.Queued[0], Number: 1, Outcome: gaveUp},
		{Queued: shortArchiveFailed.Queued[0], Number: 1, Outcome: gaveUp},
	}); err != nil {
		t.Fatal(err)
	}
	want := func(when string, s application.AcceptedSubmission, st archivedPayloadState) {
		t.Helper()
		if got := g.payloadState(t, s); got != st {
			t.Errorf("%s: %+v, want %+v", when, got, st)
		}
	}
	shred := func(at time.Time) {
		t.Helper()
		if _, err := store.ShredArchivedPayloads(g.ctx, at, 10); err != nil {
			t.Fatal(err)
		}
		if _, err := store.ShredExpiredPayloads(g.ctx, at); err != nil {
			t.Fatal(err)
		}
	}
	want("unarchived, delivered", plain, archivedPayloadState{redacted: 1})
	want("archived, delivered", archived, archivedPayloadState{stored: true, archived: true})
	want("archived, failed", archivedFailed, archivedPayloadState{stored: true, held: true, archived: true})

	shred(now.Add(time.Hour))
	want("archived, within its retention", archived, archivedPayloadState{stored: true, archived: true})

	shred(now.Add(day + time.Hour))
	want("archived, past its retention", archived, archivedPayloadState{redacted: 1})
	want("failed, past its archive but within the failed hold", shortArchiveFailed,
		archivedPayloadState{stored: true, held: true, archived: true})

	shred(now.Add(delivery.DefaultFailedPayloadRetention + time.Hour))
	want("failed, past both holds", shortArchiveFailed, archivedPayloadState{redacted: 1})
	want("failed, past the failed hold but within its archive", archivedFailed,
		archivedPayloadState{stored: true, held: true, archived: true})

	shred(now.Add(31 * day))
	want("failed, past its archive", archivedFailed, archivedPayloadState{redacted: 1})
	want("unarchived, long after", plain, archivedPayloadState{redacted: 1})
}

// Processes sweeping at once share the expired payloads: each is shredded
// and redacted once, in batches of the limit.
func TestArchiveSweepsAtOnceShredEachPayloadOnce(t *testing.T) {
	g := newGroupEnv(t)
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore())
	now := time.Now().UTC()
	var subs []application.AcceptedSubmission
	var attempts []application.Attempt
	for range 9 {
		s := archivedFor(g.accepted(g.version, ""), now.Add(time.Hour))
		subs = append(subs, s)
		attempts = append(attempts, application.Attempt{Queued: s.Queued[0], Number: 1, Outcome: delivery.Succeeded{Attempt: 1, At: now}})
	}
	g.accept(t, subs...)
	if err := store.RecordAttempts(g.ctx, attempts); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n, err := store.ShredArchivedPayloads(g.ctx, now.Add(2*time.Hour), 2)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				total += n
				mu.Unlock()
				if n == 0 {
					return
				}
			}
		}()
	}
	wg.Wait()
	if total != len(subs) {
		t.Errorf("the sweeps shredded %d, want %d", total, len(subs))
	}
	for i, s := range subs {
		if st := g.payloadState(t, s); st != (archivedPayloadState{redacted: 1}) {
			t.Errorf("submission %d: %+v", i, st)
		}
	}
}
