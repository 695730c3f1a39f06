package postgres_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
)

// A published message refers to its stored event instead of repeating its
// data and metadata (a quarter of the WAL a submission wrote); a consumer
// reads them from the store in the transaction that acknowledges the
// message. A message that still carries them (published before) is used as
// it is, and a reference to an event the store lacks is a permanent failure.
func TestAMessageRefersToItsStoredEvent(t *testing.T) {
	db := newTestDB(t)
	store := postgres.NewEventStore()
	id, md := uuid.NewString(), testMetadata("req-ref")
	appendCommitted(t, db, store, time.Now().UTC(), streamOf(postgres.StreamForm, id, 0, md, noted{Text: "kept in the store", N: 7}))

	var raw []byte
	if err := db.pool.QueryRow(db.ctx, `SELECT payload FROM watermill_form`).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	if _, ok := fields["data"]; ok {
		t.Errorf("the message repeats its event's data: %s", raw)
	}
	if _, ok := fields["metadata"]; ok {
		t.Errorf("the message repeats its event's metadata: %s", raw)
	}
	var msg postgres.StoredEvent
	if err := json.Unmarshal(raw, &msg); err != nil {
		t.Fatal(err)
	}
	if !msg.IsReference() || msg.StreamID != id || msg.Version != 1 || msg.Type != "test.noted.v1" {
		t.Fatalf("message %s, want a reference to version 1 of %s", raw, id)
	}

	// The message as a consumer group gets it, with its transaction.
	delivered := firstMessage(t, db.ctx, db.pool, "message-reference-test", postgres.StreamForm)
	defer delivered.Ack()
	e, err := postgres.ResolveMessage(delivered.Context(), msg)
	if err != nil {
		t.Fatal(err)
	}
	assertJSONEqual(t, "resolved data", e.Data, noted{Text: "kept in the store", N: 7})
	if e.Metadata != md {
		t.Errorf("resolved metadata %+v, want %+v", e.Metadata, md)
	}
	missing := msg
	missing.Version = 2
	if _, err := postgres.ResolveMessage(delivered.Context(), missing); !errors.Is(err, application.ErrPermanent) {
		t.Errorf("a reference to an event the store lacks: %v, want a permanent failure", err)
	}

	if _, err := postgres.ResolveMessage(db.ctx, msg); err == nil {
		t.Error("resolved a reference outside any message's transaction")
	}
	carried := msg
	carried.Data, carried.Metadata = json.RawMessage(`{"text":"carried","n":1}`), md
	if e, err := postgres.ResolveMessage(db.ctx, carried); err != nil || string(e.Data) != `{"text":"carried","n":1}` {
		t.Errorf("a message carrying its data: %s, %v; want it as it is", e.Data, err)
	}
}
