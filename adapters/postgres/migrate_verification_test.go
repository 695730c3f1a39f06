package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/verification"
)

// Upgrading a database whose verification mails the verification-mailer
// consumer group sent: a mail it had sent is not sent again, a mail it had
// not sent yet (stuck behind one it kept failing on) becomes a queued
// delivery, and the group's offset no longer pins the topic.
func TestMigration5QueuesTheVerificationMailsTheOldMailerHadNotSent(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	pool := freshDatabase(t, ctx, "formd_migrate5_")
	migrateTo(t, ctx, pool, 4)

	// What the code before migration 5 stored: verifications, each with its
	// verification.requested message, and no delivery. Today's unit of work
	// stands in for that code; it also writes each verification's account
	// (migration 31) and language (migration 107), so the old table has
	// those columns while it does.
	if _, err := pool.Exec(ctx, `ALTER TABLE verifications ADD COLUMN account_id uuid, ADD COLUMN language text NOT NULL DEFAULT ''`); err != nil {
		t.Fatal(err)
	}
	tx := postgres.NewTransactor(pool, postgres.NewEventStore(), wallClock{})
	request := func(kind verification.Kind, subject, email string) *verification.Verification {
		v, err := verification.Request(verification.Requested{VerificationID: uuid.NewString(), Kind: kind, SubjectID: subject,
			AccountID: uuid.NewString(), Email: email, TokenHash: strings.ReplaceAll(uuid.NewString(), "-", ""), DeliveryID: uuid.NewString()}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.InTx(ctx, testMetadata("old"), func(tx application.Tx) error { return tx.SaveVerification(ctx, v) }); err != nil {
			t.Fatal(err)
		}
		return v
	}
	sent := request(verification.KindAccount, uuid.NewString(), "sent@example.com")
	stuck := request(verification.KindAccount, uuid.NewString(), "refused@example.com")
	formID := uuid.NewString()
	behind := request(verification.KindRecipient, formID, "inbox@example.com")
	// Messages then carried their event's data and metadata, where today's
	// refer to the event (application.EventMessage).
	if _, err := pool.Exec(ctx, `
		UPDATE watermill_verification m SET payload = convert_to((convert_from(m.payload, 'UTF8')::jsonb
		       || jsonb_build_object('data', e.data, 'metadata', e.metadata))::text, 'UTF8')
		FROM events e
		WHERE e.stream_id = (convert_from(m.payload, 'UTF8')::jsonb->>'streamId')::uuid
		  AND e.version = (convert_from(m.payload, 'UTF8')::jsonb->>'version')::int`); err != nil {
		t.Fatal(err)
	}
	// The old group acknowledged the first message, then kept failing on the second.
	if _, err := pool.Exec(ctx, `
		INSERT INTO watermill_offsets_verification (consumer_group, offset_acked, last_processed_transaction_id)
		SELECT 'verification-mailer', "offset", transaction_id FROM watermill_verification
		WHERE convert_from(payload, 'UTF8')::jsonb->>'streamId' = $1`, sent.VerificationID); err != nil {
		t.Fatal(err)
	}

	if _, err := pool.Exec(ctx, `ALTER TABLE verifications DROP COLUMN account_id, DROP COLUMN language`); err != nil {
		t.Fatal(err)
	}
	migrateTo(t, ctx, pool, 5)
	// Today's store needs today's schema: the rest of the chain, then the
	// carry to the baseline, leave the rows migration 5 queued as they are.
	migrateTo(t, ctx, pool, prereleaseLast)
	if err := postgres.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}

	store := postgres.NewDeliveryStore(pool, postgres.NewEventStore())
	claimed, err := store.ClaimDue(ctx, time.Now(), time.Minute, 10)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]delivery.Queued{}
	for _, c := range claimed {
		got[c.DeliveryID] = c.Queued
	}
	want := map[string]delivery.Queued{
		stuck.DeliveryID: {DeliveryID: stuck.DeliveryID, VerificationID: stuck.VerificationID, Kind: delivery.KindAccountVerification},
		behind.DeliveryID: {DeliveryID: behind.DeliveryID, VerificationID: behind.VerificationID, FormID: formID,
			Kind: delivery.KindRecipientVerification},
	}
	if len(got) != len(want) {
		t.Fatalf("queued %+v, want the two unsent mails only", got)
	}
	for id, w := range want {
		// The time it was queued is the migration's: any, but set.
		if got[id].At.IsZero() {
			t.Errorf("queued %+v without the time it was queued", got[id])
		}
		w.At = got[id].At
		if got[id] != w {
			t.Errorf("queued %+v, want %+v", got[id], w)
		}
		// The delivery's stream starts with its delivery.queued event, in
		// the stored shape this build reads, so its attempts append after it.
		events, err := postgres.NewEventStore().Load(ctx, pool, id)
		if err != nil || len(events) != 1 {
			t.Fatalf("stream of %s: %+v, %v", id, events, err)
		}
		e, err := postgres.Decode(events[0])
		if err != nil {
			t.Fatalf("decode the migrated event: %v", err)
		}
		q := e.(delivery.Queued)
		if time.Since(q.At) > time.Minute {
			t.Errorf("queued at %v", q.At)
		}
		q.At = w.At // checked above: recent
		if q != w || events[0].Version != 1 {
			t.Errorf("event %+v v%d, want %+v v1", q, events[0].Version, w)
		}
	}
	var groups int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM watermill_offsets_verification`).Scan(&groups); err != nil {
		t.Fatal(err)
	}
	if groups != 0 {
		t.Errorf("%d consumer groups still read the verification topic", groups)
	}
}
