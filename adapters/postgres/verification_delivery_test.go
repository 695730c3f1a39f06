package postgres_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/verification"
)

// nextMessage waits for the next message of a subscription.
func nextMessage(t *testing.T, ctx context.Context, msgs <-chan *message.Message) *message.Message {
	t.Helper()
	select {
	case msg := <-msgs:
		return msg
	case <-ctx.Done():
		t.Fatal("no message")
		return nil
	}
}

// firstMessage subscribes consumer group to topic and returns the first
// message it receives, within 20 s, not yet acknowledged: its context holds
// the transaction that acknowledges it.
func firstMessage(t *testing.T, ctx context.Context, pool *pgxpool.Pool, group, topic string) *message.Message {
	t.Helper()
	sub := newSubscriber(t, pool, group)
	t.Cleanup(func() { _ = sub.Close() })
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	t.Cleanup(cancel)
	msgs, err := sub.Subscribe(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	return nextMessage(t, ctx, msgs)
}

// A verification mail is a delivery like a submission's: queued with the
// verification in one transaction, projected into the queue, claimed with
// the verification it names, and recorded as failed without a submission
// whose payload could be redacted.
func TestAVerificationMailGoesThroughTheDeliveryQueue(t *testing.T) {
	env := newUoWEnv(t)
	_, formID := env.seedForm(t)
	v, err := verification.Request(verification.Requested{VerificationID: uuid.NewString(), Kind: verification.KindRecipient,
		SubjectID: formID, AccountID: uuid.NewString(), Email: "inbox@example.com", TokenHash: "abcd", DeliveryID: uuid.NewString()}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	env.run(t, func(tx application.Tx) error {
		if err := tx.SaveVerification(env.ctx, v); err != nil {
			return err
		}
		return tx.QueueDelivery(env.ctx, v.Delivery())
	})

	// The delivery-queue consumer group's part.
	msg := firstMessage(t, env.ctx, env.pool, "verification-delivery-test", postgres.StreamDelivery)
	var stored postgres.StoredEvent
	if err := json.Unmarshal(msg.Payload, &stored); err != nil {
		t.Fatal(err)
	}
	decoded, err := postgres.DecodeMessage(msg.Context(), stored)
	if err != nil {
		t.Fatal(err)
	}
	q, ok := decoded.(delivery.Queued)
	if !ok || q != v.Delivery() || stored.StreamID != v.DeliveryID || stored.Version != 1 {
		t.Fatalf("published %s v%d %#v, want the verification's delivery.queued at version 1", stored.StreamID, stored.Version, decoded)
	}
	if err := postgres.NewDeliveryQueue().Queue(msg.Context(), q); err != nil {
		t.Fatal(err)
	}
	msg.Ack()

	store := postgres.NewDeliveryStore(env.pool, postgres.NewEventStore())
	var claimed []application.ClaimedDelivery
	deadline := time.Now().Add(10 * time.Second)
	for len(claimed) == 0 && time.Now().Before(deadline) {
		if claimed, err = store.ClaimDue(env.ctx, time.Now(), time.Minute, 10); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(claimed) != 1 {
		t.Fatalf("claimed %+v, want the verification mail", claimed)
	}
	c := claimed[0]
	want := delivery.Queued{DeliveryID: v.DeliveryID, VerificationID: v.VerificationID, FormID: formID, Kind: delivery.KindRecipientVerification}
	if c.DeliveryID != want.DeliveryID || c.VerificationID != want.VerificationID || c.FormID != formID || c.SubmissionID != "" || c.Kind != want.Kind {
		t.Errorf("claimed %+v, want %+v with no submission", c.Queued, want)
	}
	rec, err := env.read.VerificationByID(env.ctx, c.VerificationID)
	if err != nil || rec.Email != "inbox@example.com" || rec.DeliveryID != v.DeliveryID || rec.Kind != verification.KindRecipient {
		t.Errorf("VerificationByID = %+v, %v", rec, err)
	}

	now := time.Now().UTC()
	err = store.RecordAttempts(env.ctx, []application.Attempt{{Queued: c.Queued, Number: 1,
		Outcome: delivery.GaveUp{Attempts: 1, Reason: "550 5.1.1 no such user", At: now}}})
	if err != nil {
		t.Fatalf("RecordAttempts: %v", err)
	}
	var status, lastError string
	var attempts int
	var submission *string
	if err := env.pool.QueryRow(env.ctx, `SELECT status, attempts, last_error, submission_id::text FROM deliveries WHERE id = $1`,
		v.DeliveryID).Scan(&status, &attempts, &lastError, &submission); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || attempts != 1 || lastError != "550 5.1.1 no such user" || submission != nil {
		t.Errorf("delivery %s after %d attempts (%q), submission %v; want failed after 1, no submission", status, attempts, lastError, submission)
	}
	var redacted int
	if err := env.pool.QueryRow(env.ctx, `SELECT count(*) FROM events WHERE event_type = 'submission.redacted.v1'`).Scan(&redacted); err != nil {
		t.Fatal(err)
	}
	if redacted != 0 {
		t.Errorf("a verification mail's end redacted %d submissions", redacted)
	}
}

// A poisoned message is recorded in the transaction that acknowledges it:
// the record appears when, and only when, the acknowledgement commits.
func TestPoisonedMessagesAreRecordedWithTheirAcknowledgement(t *testing.T) {
	db := newTestDB(t)
	poisoned := postgres.NewPoisonedMessages()
	p := application.PoisonedMessage{Group: "g", Topic: postgres.StreamDelivery, Reason: "undecodable"}
	if err := poisoned.Record(db.ctx, p); err == nil {
		t.Fatal("recorded a poisoned message outside any message transaction")
	}
	id := uuid.NewString()
	appendCommitted(t, db, postgres.NewEventStore(), time.Now(), postgres.StreamEvents{StreamType: postgres.StreamDelivery, StreamID: id,
		Events:   []postgres.Event{delivery.Queued{DeliveryID: id, SubmissionID: uuid.NewString(), Kind: delivery.KindEmail, At: time.Now()}},
		Metadata: testMetadata("poison")})
	count := func() int {
		var n int
		if err := db.pool.QueryRow(db.ctx, `SELECT count(*) FROM poisoned_messages WHERE message_uuid = $1`, p.MessageID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	msg := firstMessage(t, db.ctx, db.pool, "poison-test", postgres.StreamDelivery)
	p.MessageID, p.Payload = msg.UUID, msg.Payload
	if err := poisoned.Record(msg.Context(), p); err != nil {
		t.Fatalf("Record: %v", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("the record is visible before the acknowledgement commits (%d)", n)
	}
	msg.Ack()
	deadline := time.Now().Add(10 * time.Second)
	for count() != 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d records of the poisoned message, want 1", n)
	}
	var reason, payload string
	if err := db.pool.QueryRow(db.ctx, `SELECT reason, convert_from(payload, 'UTF8') FROM poisoned_messages`).Scan(&reason, &payload); err != nil {
		t.Fatal(err)
	}
	if reason != "undecodable" || payload != string(p.Payload) {
		t.Errorf("recorded %q, %q", reason, payload)
	}
}

// A verification's mail is in its form's language when the form has one,
// else in the language of the request that asked for the link, else
// English (blank).
func TestAVerificationIsMailedInItsFormsLanguageElseTheRequests(t *testing.T) {
	env := newUoWEnv(t)
	_, formID := env.seedForm(t)
	accountID := uuid.NewString()
	save := func(kind verification.Kind, subjectID, language string) string {
		t.Helper()
		v, err := verification.Request(verification.Requested{VerificationID: uuid.NewString(), Kind: kind, SubjectID: subjectID,
			AccountID: accountID, Email: "inbox@example.com", TokenHash: strings.ReplaceAll(uuid.NewString(), "-", ""), DeliveryID: uuid.NewString(),
			Language: language}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		env.run(t, func(tx application.Tx) error { return tx.SaveVerification(env.ctx, v) })
		return v.VerificationID
	}
	languageOf := func(id string) string {
		t.Helper()
		rec, err := env.read.VerificationByID(env.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return rec.Language
	}
	recipientFr := save(verification.KindRecipient, formID, "fr")
	routeFr := save(verification.KindRouteRecipient, formID, "fr")
	accountFr := save(verification.KindAccount, accountID, "fr")
	resetBlank := save(verification.KindPasswordReset, accountID, "")
	if got := []string{languageOf(recipientFr), languageOf(routeFr), languageOf(accountFr), languageOf(resetBlank)}; got[0] != "fr" ||
		got[1] != "fr" || got[2] != "fr" || got[3] != "" {
		t.Errorf("languages of a form without one %q; want the requests' (fr, fr, fr, blank)", got)
	}
	if _, err := env.pool.Exec(env.ctx, `UPDATE forms SET settings = jsonb_set(settings, '{language}', '"de"') WHERE id = $1`, formID); err != nil {
		t.Fatal(err)
	}
	if got := []string{languageOf(recipientFr), languageOf(routeFr), languageOf(accountFr)}; got[0] != "de" || got[1] != "de" || got[2] != "fr" {
		t.Errorf("languages under a form in de %q; want the form's for its recipients (de, de) and the request's for the account (fr)", got)
	}
}
