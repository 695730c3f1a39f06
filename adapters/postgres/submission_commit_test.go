package postgres_test

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// groupEnv is a database with one form and a submission store on it.
type groupEnv struct {
	uowEnv
	subs      *postgres.SubmissionStore
	accountID string
	formID    string
	version   int
}

func newGroupEnv(t *testing.T) groupEnv {
	t.Helper()
	e := newUoWEnv(t)
	accountID, formID := e.seedForm(t)
	events := postgres.NewEventStore()
	subs, closeStore := postgres.NewSubmissionStore(e.pool, events, postgres.NewDeliveryStore(e.pool, events),
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(closeStore)
	return groupEnv{uowEnv: e, subs: subs, accountID: accountID, formID: formID, version: 1}
}

// accepted is one accepted submission of the form, judged at version, with
// one queued email delivery; key is its Idempotency-Key ("" for none).
func (g groupEnv) accepted(version int, key string) application.AcceptedSubmission {
	id, deliveryID, now := uuid.NewString(), uuid.NewString(), time.Now().UTC()
	return application.AcceptedSubmission{
		FormID: g.formID, FormVersion: version, IdempotencyKey: key, Metadata: testMetadata("req-" + id),
		Accepted: submission.Accepted{SubmissionID: id, FormID: g.formID, RequestID: "req-" + id, FieldNames: []string{"email"},
			ValueHashes: map[string]string{"email": "h"}, Deliveries: []submission.DeliveryRef{{ID: deliveryID, Kind: delivery.KindEmail, Target: "o***@example.com"}}, At: now},
		Queued: []delivery.Queued{{DeliveryID: deliveryID, SubmissionID: id, FormID: g.formID, Kind: delivery.KindEmail,
			Target: "o***@example.com", At: now}},
		Payload: application.SealedPayload{WrappedKey: []byte("wrapped"), Ciphertext: []byte("sealed " + id)},
		Response: application.StoredResponse{RequestHash: []byte("hash " + key), Redirect: "https://example.com/thanks",
			Response: application.SubmissionResponse{Success: true, RequestID: "req-" + id, DeliveryID: deliveryID}},
	}
}

// accept commits each submission through the group commit, failing the test
// on an error.
func (g groupEnv) accept(t *testing.T, subs ...application.AcceptedSubmission) {
	t.Helper()
	for _, s := range subs {
		if _, err := g.subs.Accept(g.ctx, s); err != nil {
			t.Fatal(err)
		}
	}
}

// committed reports whether a submission's event, message, delivery and
// payload are stored, failing when only part of them is.
func (g groupEnv) committed(t *testing.T, s application.AcceptedSubmission) bool {
	t.Helper()
	var events, payloads, deliveries, messages int
	err := g.pool.QueryRow(g.ctx, `SELECT
		(SELECT count(*) FROM events WHERE stream_id IN ($1, $2)),
		(SELECT count(*) FROM submission_payloads WHERE submission_id = $1),
		(SELECT count(*) FROM deliveries WHERE id = $2),
		(SELECT count(*) FROM watermill_submission WHERE convert_from(payload, 'UTF8') LIKE '%' || $1 || '%')`,
		s.Accepted.SubmissionID, s.Queued[0].DeliveryID).Scan(&events, &payloads, &deliveries, &messages)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case events == 1 && payloads == 1 && deliveries == 1 && messages == 1:
		return true
	case events == 0 && payloads == 0 && deliveries == 0 && messages == 0:
		return false
	}
	t.Fatalf("submission %s is half committed: %d events, %d payloads, %d deliveries, %d messages", s.Accepted.SubmissionID,
		events, payloads, deliveries, messages)
	return false
}

func (g groupEnv) storeKey(t *testing.T, s application.AcceptedSubmission) {
	t.Helper()
	if _, errs, err := postgres.CommitCarefully(g.subs, g.ctx, []application.AcceptedSubmission{s}); err != nil || errs[0] != nil {
		t.Fatalf("seeding a committed keyed submission: %v %v", err, errs)
	}
}

// wantAnswers checks each submission's answer: "" committed with no prior
// response, "concurrency" refused as judged on an old form version, or the
// request id of the response it was answered with.
func wantAnswers(t *testing.T, path string, priors []*application.StoredResponse, errs []error, want []string) {
	t.Helper()
	for i, w := range want {
		var got string
		switch {
		case errors.Is(errs[i], domain.ErrConcurrency):
			got = "concurrency"
		case errs[i] != nil:
			got = "error: " + errs[i].Error()
		case priors[i] != nil:
			got = priors[i].Response.RequestID
		}
		if got != w {
			t.Errorf("%s: submission %d answered %q, want %q", path, i, got, w)
		}
	}
}

func TestGroupCommitPipelinedCommitsABatchInOneRoundTrip(t *testing.T) {
	t.Parallel()
	g := newGroupEnv(t)
	batch := []application.AcceptedSubmission{g.accepted(1, ""), g.accepted(1, "k1"), g.accepted(1, "k2"), g.accepted(1, "k1")}
	priors, errs, err := postgres.CommitPipelined(g.subs, g.ctx, batch)
	if err != nil {
		t.Fatalf("CommitPipelined: %v", err)
	}
	// The second submission with k1 is a twin: answered with the first's response.
	wantAnswers(t, "pipelined", priors, errs, []string{"", "", "", batch[1].Accepted.RequestID})
	for i, want := range []bool{true, true, true, false} {
		if got := g.committed(t, batch[i]); got != want {
			t.Errorf("submission %d committed = %v, want %v", i, got, want)
		}
	}
	stored, err := g.subs.IdempotentResponse(g.ctx, g.formID, "k2")
	if err != nil || stored == nil || stored.Response.RequestID != batch[2].Accepted.RequestID || stored.Redirect != batch[2].Response.Redirect ||
		string(stored.RequestHash) != "hash k2" {
		t.Fatalf("IdempotentResponse(k2) = %+v, %v", stored, err)
	}
}

func TestGroupCommitPipelinedFailsAsAWhole(t *testing.T) {
	t.Parallel()
	g := newGroupEnv(t)
	seeded := g.accepted(1, "used")
	g.storeKey(t, seeded)
	for name, spoiler := range map[string]application.AcceptedSubmission{
		"stale form version":           g.accepted(0, ""),
		"Idempotency-Key already used": g.accepted(1, "used"),
		"two versions of one form":     g.accepted(2, ""),
	} {
		t.Run(name, func(t *testing.T) {
			fresh := g.accepted(1, "")
			batch := []application.AcceptedSubmission{fresh, spoiler}
			if _, _, err := postgres.CommitPipelined(g.subs, g.ctx, batch); err == nil {
				t.Fatal("CommitPipelined succeeded; the careful path must sort this batch out")
			}
			if g.committed(t, fresh) || g.committed(t, spoiler) {
				t.Fatal("a failed pipeline left part of the batch behind")
			}
		})
	}
}

// A batch judged as a whole on a form version that has since changed fails
// in the database, however many of its submissions share the version.
func TestGroupCommitPipelinedFailsOnAStaleFormVersion(t *testing.T) {
	t.Parallel()
	g := newGroupEnv(t)
	batch := []application.AcceptedSubmission{g.accepted(0, ""), g.accepted(0, "")}
	if _, _, err := postgres.CommitPipelined(g.subs, g.ctx, batch); err == nil {
		t.Fatal("CommitPipelined of submissions judged on an old form version succeeded")
	}
	if g.committed(t, batch[0]) || g.committed(t, batch[1]) {
		t.Fatal("a submission judged on an old form version was committed")
	}
}

// The careful path and the fallback to it answer each submission precisely.
func TestGroupCommitCarefulPathAnswersEachSubmission(t *testing.T) {
	t.Parallel()
	for _, path := range []struct {
		name   string
		commit postgres.CommitPath
	}{{"careful", postgres.CommitCarefully}, {"fallback", postgres.Commit}} {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			g := newGroupEnv(t)
			seeded := g.accepted(1, "used")
			g.storeKey(t, seeded)
			batch := []application.AcceptedSubmission{
				g.accepted(1, "new"),  // commits
				g.accepted(0, ""),     // judged on an old version: re-judged by the application
				g.accepted(1, "used"), // a retry of the seeded request
				g.accepted(1, "new"),  // a twin of the first
				g.accepted(1, ""),     // commits
			}
			priors, errs, err := path.commit(g.subs, g.ctx, batch)
			if err != nil {
				t.Fatalf("%s: %v", path.name, err)
			}
			wantAnswers(t, path.name, priors, errs, []string{"", "concurrency", seeded.Accepted.RequestID, batch[0].Accepted.RequestID, ""})
			for i, want := range []bool{true, false, false, false, true} {
				if got := g.committed(t, batch[i]); got != want {
					t.Errorf("submission %d committed = %v, want %v", i, got, want)
				}
			}
		})
	}
}

// Many concurrent Accepts through the queue: every request is answered, and
// each Idempotency-Key commits exactly once.
func TestGroupCommitQueueUnderConcurrency(t *testing.T) {
	t.Parallel()
	g := newGroupEnv(t)
	const n, keys = 60, 10
	subs := make([]application.AcceptedSubmission, n)
	for i := range subs {
		subs[i] = g.accepted(1, fmt.Sprint("key-", i%keys))
	}
	priors := make([]*application.StoredResponse, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var a application.Acceptance
			a, errs[i] = g.subs.Accept(g.ctx, subs[i])
			priors[i] = a.Prior
		}()
	}
	wg.Wait()
	winners := map[string]string{}
	for i, s := range subs {
		if errs[i] != nil {
			t.Fatalf("Accept %d: %v", i, errs[i])
		}
		if priors[i] == nil {
			if w, dup := winners[s.IdempotencyKey]; dup {
				t.Fatalf("key %s committed twice: %s and %s", s.IdempotencyKey, w, s.Accepted.RequestID)
			}
			winners[s.IdempotencyKey] = s.Accepted.RequestID
		}
		if g.committed(t, s) != (priors[i] == nil) {
			t.Fatalf("submission %d: committed and answered with a prior response disagree", i)
		}
	}
	if len(winners) != keys {
		t.Fatalf("%d keys committed, want %d", len(winners), keys)
	}
	for i, s := range subs {
		if priors[i] != nil && priors[i].Response.RequestID != winners[s.IdempotencyKey] {
			t.Errorf("submission %d answered with %s, want the winner %s", i, priors[i].Response.RequestID, winners[s.IdempotencyKey])
		}
	}
}

// Both commit paths write a submission's deliveries to the queue with it,
// due at once, queued by the submission's own submission.accepted (change
// 20): no delivery.queued event and no message on the delivery topic, so no
// Watermill consumer has to run before a worker can claim them.
func TestGroupCommitQueuesTheDeliveriesWithTheSubmission(t *testing.T) {
	t.Parallel()
	g := newGroupEnv(t)
	for name, path := range map[string]postgres.CommitPath{"pipelined": postgres.CommitPipelined, "careful": postgres.CommitCarefully} {
		s := g.accepted(g.version, "")
		if _, errs, err := path(g.subs, g.ctx, []application.AcceptedSubmission{s}); err != nil || errs[0] != nil {
			t.Fatalf("%s: commit: %v %v", name, err, errs)
		}
		deliveryID := s.Queued[0].DeliveryID
		var status, submissionID string
		var due bool
		err := g.pool.QueryRow(g.ctx, `SELECT status, submission_id::text, next_attempt_at <= now() FROM deliveries WHERE id = $1`,
			deliveryID).Scan(&status, &submissionID, &due)
		if err != nil {
			t.Fatalf("%s: the delivery is not in the queue after the commit: %v", name, err)
		}
		if status != "queued" || submissionID != s.Accepted.SubmissionID || !due {
			t.Errorf("%s: queued delivery = %s of %s, due %v; want queued, of %s, due", name, status, submissionID, due, s.Accepted.SubmissionID)
		}
		var ownEvents, messages int
		var queuedBy string
		if err := g.pool.QueryRow(g.ctx, `SELECT
			(SELECT count(*) FROM events WHERE stream_id = $1),
			(SELECT count(*) FROM watermill_delivery WHERE convert_from(payload, 'UTF8') LIKE '%' || $1::text || '%'),
			(SELECT d::text FROM events e, jsonb_array_elements(e.data -> 'deliveries') d
			 WHERE e.stream_id = $2 AND e.event_type = 'submission.accepted.v1' AND d ->> 'id' = $1::text)`,
			deliveryID, s.Accepted.SubmissionID).Scan(&ownEvents, &messages, &queuedBy); err != nil {
			t.Fatalf("%s: submission.accepted does not name the delivery: %v", name, err)
		}
		if ownEvents != 0 || messages != 0 {
			t.Errorf("%s: the delivery has %d events of its own and %d messages on the delivery topic, want none", name, ownEvents, messages)
		}
		want := fmt.Sprintf(`{"id": "%s", "kind": "%s", "target": "%s"}`, deliveryID, s.Queued[0].Kind, s.Queued[0].Target)
		if queuedBy != want {
			t.Errorf("%s: submission.accepted names the delivery as %s, want %s", name, queuedBy, want)
		}
	}
}

// A group commit writes its deliveries as new rows: a delivery id already
// in the queue fails the submission on both paths rather than leaving it
// accepted without a delivery of its own (the consumer's insert, which
// skips a delivery written twice, would have).
func TestGroupCommitRefusesADeliveryIdAlreadyQueued(t *testing.T) {
	t.Parallel()
	g := newGroupEnv(t)
	first := g.accepted(g.version, "")
	if _, errs, err := postgres.CommitPipelined(g.subs, g.ctx, []application.AcceptedSubmission{first}); err != nil || errs[0] != nil {
		t.Fatalf("first commit: %v %v", err, errs)
	}
	for name, path := range map[string]postgres.CommitPath{"pipelined": postgres.CommitPipelined, "careful": postgres.CommitCarefully} {
		again := g.accepted(g.version, "")
		again.Queued[0].DeliveryID = first.Queued[0].DeliveryID
		_, errs, err := path(g.subs, g.ctx, []application.AcceptedSubmission{again})
		if err == nil && errs[0] == nil {
			t.Fatalf("%s: a submission whose delivery id is taken was committed", name)
		}
		var rows int
		if err := g.pool.QueryRow(g.ctx, `SELECT
			(SELECT count(*) FROM events WHERE stream_id = $1) + (SELECT count(*) FROM submission_payloads WHERE submission_id = $1)
			+ (SELECT count(*) FROM deliveries WHERE submission_id = $1)`, again.Accepted.SubmissionID).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if rows != 0 {
			t.Fatalf("%s: the refused submission left %d rows", name, rows)
		}
	}
}

// Close waits for the commits under way, so a submission queued before a
// shutdown is committed and answered, and refuses submissions after it.
// The commit is held on an Idempotency-Key that another transaction has
// inserted and not yet committed.
func TestClosingTheSubmissionStoreCommitsWhatIsUnderWay(t *testing.T) {
	t.Parallel()
	g := newGroupEnv(t)
	held := g.accepted(1, "held-key")
	blocker, err := g.pool.Begin(g.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Rollback(g.ctx) //nolint:errcheck
	if _, err := blocker.Exec(g.ctx, `INSERT INTO idempotency_keys (form_id, key, request_hash, response, redirect)
		VALUES ($1, 'held-key', '\x00', '{}', '')`, g.formID); err != nil {
		t.Fatal(err)
	}
	answered := make(chan error, 1)
	go func() {
		_, err := g.subs.Accept(g.ctx, held)
		answered <- err
	}()
	for waiting := 0; waiting == 0; {
		if err := g.pool.QueryRow(g.ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	closed := make(chan struct{})
	go func() {
		g.subs.Close()
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("Close returned while a commit was under way")
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := g.subs.Accept(g.ctx, g.accepted(1, "")); err == nil {
		t.Error("the store accepted a submission while closing")
	}
	if err := blocker.Rollback(g.ctx); err != nil {
		t.Fatal(err)
	}
	<-closed
	if err := <-answered; err != nil {
		t.Fatalf("the submission under way at Close: %v", err)
	}
	if !g.committed(t, held) {
		t.Error("the submission under way at Close was answered but not committed")
	}
}
