package postgres_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// Regression: a failure reason was cut at 500 bytes, possibly inside a UTF-8
// character; PostgreSQL refused the text and the attempt was never recorded.
func TestRecordAttemptsKeepsALongMultibyteReason(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	store := postgres.NewDeliveryStore(pool, postgres.NewEventStore())
	q := delivery.Queued{DeliveryID: uuid.NewString(), SubmissionID: uuid.NewString(), FormID: uuid.NewString(),
		Kind: delivery.KindWebhook, At: time.Now()}
	reason := strings.Repeat("a", 499) + "ééé receiver said nein"
	now := time.Now().UTC()
	err := store.RecordAttempts(ctx, []application.Attempt{{Queued: q, Number: 1,
		Outcome: delivery.AttemptFailed{Attempt: 1, Reason: reason, NextAt: now.Add(time.Minute), At: now}}})
	if err != nil {
		t.Fatalf("RecordAttempts: %v", err)
	}
	var stored, status string
	if err := pool.QueryRow(ctx, `SELECT last_error, status FROM deliveries WHERE id = $1`, q.DeliveryID).Scan(&stored, &status); err != nil {
		t.Fatal(err)
	}
	if status != "retrying" || !utf8.ValidString(stored) || len(stored) > 500 || !strings.HasPrefix(reason, stored) {
		t.Fatalf("stored %q (%d bytes, status %s), want a valid prefix of at most 500 bytes", stored, len(stored), status)
	}
}

// Key rotation: the id of the key that sealed a payload is stored with it
// and read back, so a formd with other keys knows which one opens it; a
// payload whose delivery waits for its key (a failed, not final, attempt)
// stays stored.
func TestPayloadsKeepTheirKeyIDAndAWaitingDeliveryKeepsIt(t *testing.T) {
	g := newGroupEnv(t)
	s := g.accepted(g.version, "")
	s.Payload.KeyID = "1a2b3c4d"
	g.accept(t, s)
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore())
	id := s.Accepted.SubmissionID
	got, err := store.Payloads(g.ctx, []string{id})
	if err != nil || got[id].KeyID != "1a2b3c4d" || string(got[id].Ciphertext) != "sealed "+id {
		t.Fatalf("Payloads = %+v, %v; want key id 1a2b3c4d and the ciphertext", got, err)
	}

	now := time.Now().UTC()
	reason := "sealing key wrong or missing: sealed under key 1a2b3c4d, which is not configured"
	err = store.RecordAttempts(g.ctx, []application.Attempt{{Queued: s.Queued[0], Number: 1,
		Outcome: delivery.AttemptFailed{Attempt: 1, Reason: reason, NextAt: now.Add(time.Minute), At: now}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := store.Payloads(g.ctx, []string{id}); err != nil || len(got) != 1 {
		t.Fatalf("after an attempt waiting for its key, Payloads = %+v, %v; want the payload kept", got, err)
	}
	var lastError string
	if err := g.pool.QueryRow(g.ctx, `SELECT last_error FROM deliveries WHERE id = $1`, s.Queued[0].DeliveryID).Scan(&lastError); err != nil || lastError != reason {
		t.Fatalf("last_error %q (%v), want %q", lastError, err, reason)
	}

	// A payload stored before key ids existed reads with an empty key id.
	if _, err := g.pool.Exec(g.ctx, `UPDATE submission_payloads SET key_id = DEFAULT WHERE submission_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if got, err := store.Payloads(g.ctx, []string{id}); err != nil || got[id].KeyID != "" {
		t.Fatalf("a payload without key id: %+v, %v", got, err)
	}
}

// Two workers finishing the last two deliveries of one submission at the
// same moment must leave its payload shredded, once: the second to settle
// sees the first's count. (A one-statement settlement judged on a stale
// snapshot failed this: it left payloads neither deleted nor updated.)
func TestConcurrentLastDeliveriesShredThePayloadOnce(t *testing.T) {
	g := newGroupEnv(t)
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore())
	var subs []application.AcceptedSubmission
	for range 40 {
		s := g.accepted(g.version, "")
		second := delivery.Queued{DeliveryID: uuid.NewString(), SubmissionID: s.Accepted.SubmissionID, FormID: g.formID,
			Kind: delivery.KindAutoresponder, At: s.Queued[0].At}
		s.Queued = append(s.Queued, second)
		s.Accepted.Deliveries = append(s.Accepted.Deliveries, submission.DeliveryRef{ID: second.DeliveryID, Kind: second.Kind})
		g.accept(t, s)
		subs = append(subs, s)
	}
	now := time.Now().UTC()
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(subs))
	for _, s := range subs {
		for _, q := range s.Queued {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- store.RecordAttempts(g.ctx, []application.Attempt{{Queued: q, Number: 1, Outcome: delivery.Succeeded{Attempt: 1, At: now}}})
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range subs {
		var payloads, redacted int
		err := g.pool.QueryRow(g.ctx, `SELECT (SELECT count(*) FROM submission_payloads WHERE submission_id = $1),
			(SELECT count(*) FROM events WHERE stream_id = $1 AND event_type = 'submission.redacted.v1')`, s.Accepted.SubmissionID).
			Scan(&payloads, &redacted)
		if err != nil || payloads != 0 || redacted != 1 {
			t.Fatalf("submission %s: %d payloads, %d redacted events (%v); want 0 and 1", s.Accepted.SubmissionID, payloads, redacted, err)
		}
	}
}

// The last delivery of a submission shreds its payload in the settling
// statement itself, with one submission.redacted; a failed delivery among
// the final ones keeps the payload for its retention instead.
func TestSettlingShredsAtOnceUnlessADeliveryFailed(t *testing.T) {
	g := newGroupEnv(t)
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore())
	now := time.Now().UTC()
	single := g.accepted(g.version, "")
	twice := g.accepted(g.version, "")
	second := delivery.Queued{DeliveryID: uuid.NewString(), SubmissionID: twice.Accepted.SubmissionID, FormID: g.formID,
		Kind: delivery.KindAutoresponder, At: twice.Queued[0].At}
	twice.Queued = append(twice.Queued, second)
	twice.Accepted.Deliveries = append(twice.Accepted.Deliveries, submission.DeliveryRef{ID: second.DeliveryID, Kind: second.Kind})
	g.accept(t, single, twice)
	err := store.RecordAttempts(g.ctx, []application.Attempt{
		{Queued: single.Queued[0], Number: 1, Outcome: delivery.Succeeded{Attempt: 1, At: now}},
		{Queued: twice.Queued[0], Number: 1, Outcome: delivery.GaveUp{Attempts: 1, Reason: "550 no such user", At: now}},
		{Queued: twice.Queued[1], Number: 1, Outcome: delivery.Succeeded{Attempt: 1, At: now}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s                  application.AcceptedSubmission
		payloads, redacted int
		kept               bool
	}{{single, 0, 1, false}, {twice, 1, 0, true}} {
		var payloads, redacted int
		var kept bool
		err := g.pool.QueryRow(g.ctx, `SELECT (SELECT count(*) FROM submission_payloads WHERE submission_id = $1),
			(SELECT count(*) FROM events WHERE stream_id = $1 AND event_type = 'submission.redacted.v1'),
			coalesce((SELECT keep_until IS NOT NULL FROM submission_payloads WHERE submission_id = $1), false)`,
			c.s.Accepted.SubmissionID).Scan(&payloads, &redacted, &kept)
		if err != nil || payloads != c.payloads || redacted != c.redacted || kept != c.kept {
			t.Errorf("submission with %d deliveries: %d payloads, %d redacted, kept %v (%v); want %d, %d, %v",
				len(c.s.Queued), payloads, redacted, kept, err, c.payloads, c.redacted, c.kept)
		}
	}
}

// An attempt already recorded elsewhere (a duplicate run after a lost lease)
// fails its group's transaction, which is rolled back; the group is then
// recorded one attempt at a time, so the others land, and the connection
// goes back to the pool outside any transaction. A record is two pipelines
// that open and close their transaction themselves, so a failure inside
// the first one must leave nothing half done.
func TestAnAttemptRecordedElsewhereLeavesTheRestOfItsGroupToLand(t *testing.T) {
	g := newGroupEnv(t)
	// One connection: a transaction left open would show on the next use.
	cfg := g.pool.Config()
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(g.ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := postgres.NewDeliveryStore(pool, postgres.NewEventStore())
	var queued []delivery.Queued
	for range 2 {
		s := g.accepted(g.version, "")
		g.accept(t, s)
		queued = append(queued, s.Queued[0])
	}
	now := time.Now().UTC()
	attempt := func(q delivery.Queued) application.Attempt {
		return application.Attempt{Queued: q, Number: 1, Outcome: delivery.Succeeded{Attempt: 1, At: now}}
	}
	if err := store.RecordAttempts(g.ctx, []application.Attempt{attempt(queued[0])}); err != nil {
		t.Fatal(err)
	}
	if err := store.RecordAttempts(g.ctx, []application.Attempt{attempt(queued[0]), attempt(queued[1])}); err != nil {
		t.Fatalf("RecordAttempts with one attempt recorded before: %v", err)
	}
	for i, q := range queued {
		var status string
		var outcomes, redacted int
		if err := pool.QueryRow(g.ctx, `SELECT (SELECT status FROM deliveries WHERE id = $1),
			(SELECT count(*) FROM events WHERE stream_id = $1 AND event_type LIKE 'delivery.succeeded%'),
			(SELECT count(*) FROM events WHERE stream_id = $2 AND event_type = 'submission.redacted.v1')`,
			q.DeliveryID, q.SubmissionID).Scan(&status, &outcomes, &redacted); err != nil {
			t.Fatal(err)
		}
		if status != "succeeded" || outcomes != 1 || redacted != 1 {
			t.Errorf("delivery %d: status %s, %d outcomes, %d redactions; want succeeded, 1 and 1", i, status, outcomes, redacted)
		}
	}
	conn, err := pool.Acquire(g.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if status := conn.Conn().PgConn().TxStatus(); status != 'I' {
		t.Fatalf("the connection came back in transaction status %q, want idle", status)
	}
}
