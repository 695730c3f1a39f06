package postgres_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// eventTypesOf are the stored types of a stream's events, in order.
func eventTypesOf(t *testing.T, g groupEnv, streamID string) []string {
	t.Helper()
	rows, err := g.pool.Query(g.ctx, `SELECT event_type FROM events WHERE stream_id = $1 ORDER BY version`, streamID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// failOnce accepts a submission and records its one delivery as failed for good.
func failOnce(t *testing.T, g groupEnv, store *postgres.DeliveryStore) application.AcceptedSubmission {
	t.Helper()
	s := g.accepted(g.version, "")
	g.accept(t, s)
	now := time.Now().UTC()
	if err := store.RecordAttempts(g.ctx, []application.Attempt{{Queued: s.Queued[0], Number: 1,
		Outcome: delivery.GaveUp{Attempts: 1, Reason: "550 no such user", At: now}}}); err != nil {
		t.Fatal(err)
	}
	return s
}

// A failed delivery keeps its submission's payload for the retention; a
// retry re-queues it with its own event, and its success shreds the payload.
func TestAFailedDeliveryIsKeptRetriedAndThenRedacted(t *testing.T) {
	g := newGroupEnv(t)
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore()).WithFailedPayloadRetention(48 * time.Hour)
	s := failOnce(t, g, store)
	id, sub := s.Queued[0].DeliveryID, s.Accepted.SubmissionID

	rec, err := store.DeliveryByID(g.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != "failed" || rec.FinishedAt == nil || rec.NextAttemptAt != nil || rec.AccountID == "" ||
		rec.FormID != g.formID || !rec.PayloadKept || rec.LastError != "550 no such user" {
		t.Fatalf("after a final failure: %+v", rec)
	}
	var keepUntil time.Time
	if err := g.pool.QueryRow(g.ctx, `SELECT keep_until FROM submission_payloads WHERE submission_id = $1`, sub).Scan(&keepUntil); err != nil {
		t.Fatalf("the payload of a failed delivery was not kept: %v", err)
	}
	if d := time.Until(keepUntil); d < 47*time.Hour || d > 48*time.Hour {
		t.Errorf("kept for %v, want the 48h retention", d)
	}

	md := application.Metadata{Actor: application.Actor{Type: application.ActorSession, ID: "sess"}, RequestID: "req-retry"}
	rec, err = store.Requeue(g.ctx, rec, delivery.RetryRequested{At: time.Now().UTC()}, md)
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != "queued" || rec.FinishedAt != nil || rec.Retries != 1 {
		t.Fatalf("after a retry: %+v", rec)
	}
	if _, err := store.Requeue(g.ctx, rec, delivery.RetryRequested{At: time.Now().UTC()}, md); !errors.Is(err, domain.ErrConcurrency) {
		t.Fatalf("a second retry of a queued delivery: %v, want ErrConcurrency", err)
	}

	claimed, err := store.ClaimDue(g.ctx, time.Now(), time.Minute, 10)
	if err != nil || len(claimed) != 1 || claimed[0].Retries != 1 || claimed[0].Attempts != 1 {
		t.Fatalf("ClaimDue = %+v, %v", claimed, err)
	}
	now := time.Now().UTC()
	if err := store.RecordAttempts(g.ctx, []application.Attempt{{Queued: claimed[0].Queued, Number: 2, Retries: 1,
		Outcome: delivery.Succeeded{Attempt: 2, At: now}}}); err != nil {
		t.Fatal(err)
	}
	// Queued by its submission's submission.accepted, the delivery's own
	// stream starts with its first attempt, at version 2.
	want := []string{"delivery.failed.v1", "delivery.retry_requested.v1", "delivery.succeeded.v1"}
	if got := eventTypesOf(t, g, id); !sameStrings(got, want) {
		t.Errorf("stream %v, want %v", got, want)
	}
	var versions []int32
	if err := g.pool.QueryRow(g.ctx, `SELECT array_agg(version ORDER BY version) FROM events WHERE stream_id = $1`, id).Scan(&versions); err != nil ||
		!slices.Equal(versions, []int32{2, 3, 4}) {
		t.Errorf("stream versions %v (%v), want [2 3 4]", versions, err)
	}
	if got, _ := store.Payloads(g.ctx, []string{sub}); len(got) != 0 {
		t.Errorf("the payload outlived the retried delivery's success")
	}
	if got := eventTypesOf(t, g, sub); !sameStrings(got, []string{"submission.accepted.v1", "submission.redacted.v1"}) {
		t.Errorf("submission stream %v", got)
	}
}

func TestShredExpiredPayloadsAndARetryTooLate(t *testing.T) {
	g := newGroupEnv(t)
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore())
	expired, fresh := failOnce(t, g, store), failOnce(t, g, store)
	if _, err := g.pool.Exec(g.ctx, `UPDATE submission_payloads SET keep_until = now() - interval '1 second'
		WHERE submission_id = $1`, expired.Accepted.SubmissionID); err != nil {
		t.Fatal(err)
	}
	n, err := store.ShredExpiredPayloads(g.ctx, time.Now())
	if err != nil || n != 1 {
		t.Fatalf("ShredExpiredPayloads = %d, %v; want 1", n, err)
	}
	got, _ := store.Payloads(g.ctx, []string{expired.Accepted.SubmissionID, fresh.Accepted.SubmissionID})
	if _, ok := got[expired.Accepted.SubmissionID]; ok || len(got) != 1 {
		t.Fatalf("payloads after the sweep: %v; want only the one still within its retention", got)
	}
	if n, _ := store.ShredExpiredPayloads(g.ctx, time.Now()); n != 0 {
		t.Errorf("a second sweep shredded %d", n)
	}
	rec, err := store.DeliveryByID(g.ctx, expired.Queued[0].DeliveryID)
	if err != nil || rec.PayloadKept {
		t.Fatalf("%+v, %v; want the payload reported gone", rec, err)
	}
	if _, err := store.Requeue(g.ctx, rec, delivery.RetryRequested{At: time.Now()}, application.Metadata{}); !errors.Is(err, application.ErrPayloadDeleted) {
		t.Fatalf("Requeue without payload: %v", err)
	}
	if rec, _ := store.DeliveryByID(g.ctx, rec.ID); rec.State != "failed" {
		t.Errorf("a refused retry left the delivery %s", rec.State)
	}
}

func TestFormDeliveriesPagesNewestFirst(t *testing.T) {
	g := newGroupEnv(t)
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore())
	var ids []string
	for range 3 {
		ids = append(ids, failOnce(t, g, store).Queued[0].DeliveryID)
	}
	var seen []string
	f := application.DeliveryFilter{Limit: 2}
	for range 3 {
		page, err := store.FormDeliveries(g.ctx, g.formID, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range page {
			seen = append(seen, d.ID)
		}
		if len(page) < 2 {
			break
		}
		f.After = &application.DeliveryCursor{CreatedAt: page[len(page)-1].CreatedAt, ID: page[len(page)-1].ID}
	}
	if !sameStrings(seen, []string{ids[2], ids[1], ids[0]}) {
		t.Errorf("pages %v, want newest first %v", seen, []string{ids[2], ids[1], ids[0]})
	}
	for _, tt := range []struct {
		f    application.DeliveryFilter
		want int
	}{
		{application.DeliveryFilter{State: "failed", Limit: 10}, 3},
		{application.DeliveryFilter{State: "succeeded", Limit: 10}, 0},
		{application.DeliveryFilter{Kinds: []string{delivery.KindWebhook}, Limit: 10}, 0},
		{application.DeliveryFilter{Kinds: []string{delivery.KindEmail}, Limit: 10}, 3},
	} {
		if page, err := store.FormDeliveries(g.ctx, g.formID, tt.f); err != nil || len(page) != tt.want {
			t.Errorf("%+v: %d deliveries, %v; want %d", tt.f, len(page), err, tt.want)
		}
	}
	if _, err := store.DeliveryByID(g.ctx, "not-a-uuid"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("DeliveryByID(not-a-uuid) = %v", err)
	}
}

// While a worker holds a delivery, its next_attempt_at was the claim's lease:
// the log showed that as the next attempt's time. It shows none while an
// attempt is under way, and the schedule's time once it is recorded.
func TestTheLogShowsNoNextAttemptWhileOneIsUnderWay(t *testing.T) {
	g := newGroupEnv(t)
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore())
	s := g.accepted(g.version, "")
	g.accept(t, s)
	id := s.Queued[0].DeliveryID
	now := time.Now().UTC().Truncate(time.Millisecond)
	if err := store.RecordAttempts(g.ctx, []application.Attempt{{Queued: s.Queued[0], Number: 1,
		Outcome: delivery.AttemptFailed{Attempt: 1, Reason: "421 try later", NextAt: now, At: now}}}); err != nil {
		t.Fatal(err)
	}
	claimed, err := store.ClaimDue(g.ctx, now.Add(time.Second), 10*time.Minute, 10)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("ClaimDue = %+v, %v", claimed, err)
	}
	rec, err := store.DeliveryByID(g.ctx, id)
	if err != nil || rec.State != "retrying" || rec.NextAttemptAt != nil {
		t.Fatalf("while claimed: %+v, %v; want no next attempt (the lease is not one)", rec, err)
	}
	next := now.Add(5 * time.Minute)
	if err := store.RecordAttempts(g.ctx, []application.Attempt{{Queued: claimed[0].Queued, Number: 2,
		Outcome: delivery.AttemptFailed{Attempt: 2, Reason: "421 try later", NextAt: next, At: now}}}); err != nil {
		t.Fatal(err)
	}
	rec, err = store.DeliveryByID(g.ctx, id)
	if err != nil || rec.NextAttemptAt == nil || !rec.NextAttemptAt.Equal(next) {
		t.Fatalf("after the attempt: %+v, %v; want the next attempt at %v", rec, err, next)
	}
}

// The log shows what the spam check of each delivery's submission came to,
// as its submission.accepted recorded it; blank when none was asked.
func TestTheLogShowsEachSubmissionsSpamCheck(t *testing.T) {
	g := newGroupEnv(t)
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore())
	want := map[string]string{}
	for _, check := range []string{submission.SpamCheckUnavailable, submission.SpamCheckChecked, ""} {
		s := g.accepted(g.version, "")
		s.Accepted.SpamCheck = check
		g.accept(t, s)
		want[s.Queued[0].DeliveryID] = check
	}
	page, err := store.FormDeliveries(g.ctx, g.formID, application.DeliveryFilter{Limit: 10})
	if err != nil || len(page) != 3 {
		t.Fatalf("FormDeliveries = %d, %v; want 3", len(page), err)
	}
	for _, d := range page {
		if d.SpamCheck != want[d.ID] {
			t.Errorf("delivery %s: spam check %q, want %q", d.ID, d.SpamCheck, want[d.ID])
		}
	}
	for id, check := range want {
		if rec, err := store.DeliveryByID(g.ctx, id); err != nil || rec.SpamCheck != check {
			t.Errorf("DeliveryByID(%s) = %q, %v; want %q", id, rec.SpamCheck, err, check)
		}
	}
}
