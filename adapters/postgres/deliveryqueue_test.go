package postgres_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/domain/delivery"
)

func TestDeliveryQueueRefusesAContextWithoutAMessageTransaction(t *testing.T) {
	db := newTestDB(t)
	q := delivery.Queued{DeliveryID: uuid.NewString(), SubmissionID: uuid.NewString(), FormID: uuid.NewString(), Kind: delivery.KindEmail, At: time.Now()}
	if err := postgres.NewDeliveryQueue().Queue(db.ctx, q); err == nil {
		t.Fatal("queued a delivery outside any message transaction")
	}
	if n := countDeliveries(t, db, q.DeliveryID); n != 0 {
		t.Fatalf("%d rows written without a transaction", n)
	}
}

// The queue writes in the transaction that acknowledges the message: a
// message that is nacked leaves no row, and its redelivery queues it once.
func TestDeliveryQueueWritesInTheAcknowledgingTransaction(t *testing.T) {
	db := newTestDB(t)
	store := postgres.NewEventStore()
	q := delivery.Queued{DeliveryID: uuid.NewString(), SubmissionID: uuid.NewString(), FormID: uuid.NewString(),
		Kind: delivery.KindWebhook, At: time.Now().UTC().Truncate(time.Microsecond)}
	appendCommitted(t, db, store, time.Now(), postgres.StreamEvents{StreamType: postgres.StreamDelivery, StreamID: q.DeliveryID,
		Events: []postgres.Event{q}, Metadata: testMetadata("queue")})

	sub := newSubscriber(t, db.pool, "delivery-queue-test")
	ctx, cancel := context.WithTimeout(db.ctx, 20*time.Second)
	defer cancel()
	msgs, err := sub.Subscribe(ctx, postgres.StreamDelivery)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Close() })
	queue := postgres.NewDeliveryQueue()
	handle := func(acknowledge bool) {
		select {
		case msg := <-msgs:
			var e postgres.StoredEvent
			if err := json.Unmarshal(msg.Payload, &e); err != nil {
				t.Fatal(err)
			}
			decoded, err := postgres.DecodeMessage(msg.Context(), e)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := decoded.(delivery.Queued)
			if !ok {
				t.Fatalf("decoded %T, want delivery.Queued", decoded)
			}
			if err := queue.Queue(msg.Context(), got); err != nil {
				t.Fatalf("Queue: %v", err)
			}
			if n := countDeliveries(t, db, q.DeliveryID); n != 0 {
				t.Fatalf("the row is visible before the message transaction commits (%d)", n)
			}
			if acknowledge {
				msg.Ack()
			} else {
				msg.Nack()
			}
		case <-ctx.Done():
			t.Fatal("no message")
		}
	}
	handle(false) // nacked: the transaction rolls back
	handle(true)  // redelivered, then acknowledged
	deadline := time.Now().Add(10 * time.Second)
	for countDeliveries(t, db, q.DeliveryID) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the acknowledged delivery was not queued once: %d rows", countDeliveries(t, db, q.DeliveryID))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func countDeliveries(t *testing.T, db testDB, id string) int {
	t.Helper()
	var n int
	if err := db.pool.QueryRow(db.ctx, `SELECT count(*) FROM deliveries WHERE id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
