package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
)

// recorder is a delivery queue and a poisoned-message store in memory.
type recorder struct {
	mu       sync.Mutex
	queued   []delivery.Queued
	poisoned []application.PoisonedMessage
	queueErr []error // answers of successive Queue calls; nil after
}

func (r *recorder) Queue(_ context.Context, q delivery.Queued) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.queueErr) > 0 {
		err := r.queueErr[0]
		r.queueErr = r.queueErr[1:]
		if err != nil {
			return err
		}
	}
	r.queued = append(r.queued, q)
	return nil
}

func (r *recorder) Record(_ context.Context, p application.PoisonedMessage) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.poisoned = append(r.poisoned, p)
	return nil
}

func (r *recorder) state() ([]delivery.Queued, []application.PoisonedMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery.Queued(nil), r.queued...), append([]application.PoisonedMessage(nil), r.poisoned...)
}

// startRouter runs the event router on an in-memory, ordered pub/sub and
// returns where to publish.
func startRouter(t *testing.T, rec *recorder) message.Publisher {
	t.Helper()
	logger := watermill.NopLogger{}
	ps := gochannel.NewGoChannel(gochannel.Config{Persistent: true}, logger)
	app := &application.Application{Commands: application.Commands{
		QueueDelivery:         application.NewQueueDeliveryHandler(rec),
		RecordPoisonedMessage: application.NewRecordPoisonedMessageHandler(rec),
	}}
	subscribe := func(string, string) (message.Subscriber, error) { return ps, nil }
	decodeEvent := func(_ context.Context, e application.EventMessage) (any, error) {
		if e.Type != delivery.QueuedType {
			return nil, fmt.Errorf("unknown event type %q", e.Type)
		}
		var q delivery.Queued
		err := json.Unmarshal(e.Data, &q)
		return q, err
	}
	r, err := NewRouter(app, subscribe, func() <-chan struct{} { return nil }, decodeEvent, logger, NewDeliveryHandOff(DefaultGiveWayAt))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = ps.Close()
	})
	<-r.Running()
	return ps
}

func queuedMessage(t *testing.T, id string) *message.Message {
	t.Helper()
	data, _ := json.Marshal(delivery.Queued{DeliveryID: id, SubmissionID: "s-" + id, Kind: delivery.KindEmail})
	payload, err := json.Marshal(application.EventMessage{StreamType: application.TopicDelivery, StreamID: id, Version: 1,
		Type: delivery.QueuedType, SchemaVersion: 1, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return message.NewMessage(id, payload)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Regression (security review, issue 8 item 1): a message its handler
// failed on for good was retried forever, and its ordered consumer group
// handled nothing behind it. It is now recorded, once, and skipped.
func TestAMessageThatCanNeverBeHandledIsRecordedAndSkipped(t *testing.T) {
	rec := &recorder{}
	pub := startRouter(t, rec)
	bad := message.NewMessage("bad-1", []byte("not an event"))
	unknown := queuedMessage(t, "unknown-1")
	unknown.Payload = []byte(`{"type":"delivery.queued.v1","schemaVersion":1,"data":"not an object"}`)
	empty := queuedMessage(t, "empty-1") // names nothing to send
	empty.Payload = []byte(`{"type":"delivery.queued.v1","schemaVersion":1,"data":{"deliveryId":"empty-1","kind":"email"}}`)
	if err := pub.Publish(application.TopicDelivery, bad, unknown, empty, queuedMessage(t, "d-after")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the delivery behind the poisoned messages", func() bool { q, _ := rec.state(); return len(q) == 1 })
	queued, poisoned := rec.state()
	if queued[0].DeliveryID != "d-after" {
		t.Errorf("queued %+v", queued)
	}
	if len(poisoned) != 3 {
		t.Fatalf("poisoned %+v, want the three undeliverable messages once each", poisoned)
	}
	byID := map[string]application.PoisonedMessage{}
	for _, p := range poisoned {
		byID[p.MessageID] = p
	}
	for _, want := range []*message.Message{bad, unknown, empty} {
		p := byID[want.UUID]
		if string(p.Payload) != string(want.Payload) || p.Group != GroupDeliveryQueue ||
			p.Topic != application.TopicDelivery || p.Reason == "" {
			t.Errorf("recorded %+v, want message %s of group %s on %s with its reason", p, want.UUID, GroupDeliveryQueue, application.TopicDelivery)
		}
	}
}

// A failure that may pass (the database is down, say) is retried, not
// skipped: skipping it would lose the delivery.
func TestATransientFailureIsRetriedNotSkipped(t *testing.T) {
	rec := &recorder{queueErr: []error{errors.New("connection refused"), errors.New("connection refused")}}
	pub := startRouter(t, rec)
	if err := pub.Publish(application.TopicDelivery, queuedMessage(t, "d-1")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the delivery after its retries", func() bool { q, _ := rec.state(); return len(q) == 1 })
	if _, poisoned := rec.state(); len(poisoned) != 0 {
		t.Errorf("a transient failure was recorded as poisoned: %+v", poisoned)
	}
}

// A handler that panics on a message would panic again on every retry.
func TestAPanickingHandlerIsRecordedAndSkipped(t *testing.T) {
	rec := &recorder{}
	mw := poison(application.NewRecordPoisonedMessageHandler(rec), watermill.NopLogger{})
	h := mw(middleware.Recoverer(func(*message.Message) ([]*message.Message, error) { panic("boom") }))
	if _, err := h(message.NewMessage("p-1", []byte("x"))); err != nil {
		t.Fatalf("a panic was returned (%v), so the message would be retried forever", err)
	}
	if _, poisoned := rec.state(); len(poisoned) != 1 || poisoned[0].MessageID != "p-1" {
		t.Errorf("poisoned %+v", poisoned)
	}
	failing := mw(func(*message.Message) ([]*message.Message, error) { return nil, errors.New("timeout") })
	if _, err := failing(message.NewMessage("t-1", nil)); err == nil {
		t.Error("a transient failure was swallowed")
	}
}

// A submission's deliveries are written to the queue by its commit; their
// messages say so and the queue's consumer group writes nothing for them.
// A message without the mark (from before it existed) is queued as before.
func TestTheQueueSkipsDeliveriesTheirCommitAlreadyQueued(t *testing.T) {
	rec := &recorder{}
	pub := startRouter(t, rec)
	already := queuedMessage(t, "d-already")
	var e application.EventMessage
	if err := json.Unmarshal(already.Payload, &e); err != nil {
		t.Fatal(err)
	}
	e.AlreadyQueued = true
	payload, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	already.Payload = payload
	if err := pub.Publish(application.TopicDelivery, already, queuedMessage(t, "d-old")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the unmarked delivery queued", func() bool { q, _ := rec.state(); return len(q) > 0 })
	time.Sleep(100 * time.Millisecond) // the marked one came first, in order: anything it wrote is there
	queued, poisoned := rec.state()
	if len(queued) != 1 || queued[0].DeliveryID != "d-old" || len(poisoned) != 0 {
		t.Errorf("queued %+v, poisoned %+v; want only d-old queued", queued, poisoned)
	}
}

// Commits wake the subscribers of ConsumedTopics only, so the router must
// read no other topic: a group on another would wait for its poll.
func TestTheRouterReadsOnlyTheConsumedTopics(t *testing.T) {
	logger := watermill.NopLogger{}
	ps := gochannel.NewGoChannel(gochannel.Config{}, logger)
	t.Cleanup(func() { _ = ps.Close() })
	var read []string
	subscribe := func(topic, _ string) (message.Subscriber, error) {
		read = append(read, topic)
		return ps, nil
	}
	app := &application.Application{Commands: application.Commands{
		QueueDelivery:         application.NewQueueDeliveryHandler(&recorder{}),
		RecordPoisonedMessage: application.NewRecordPoisonedMessageHandler(&recorder{}),
	}}
	decodeEvent := func(context.Context, application.EventMessage) (any, error) { return nil, nil }
	if _, err := NewRouter(app, subscribe, func() <-chan struct{} { return nil }, decodeEvent, logger, NewDeliveryHandOff(DefaultGiveWayAt)); err != nil {
		t.Fatal(err)
	}
	if len(read) == 0 {
		t.Fatal("the router subscribed to no topic")
	}
	for _, topic := range read {
		if !slices.Contains(ConsumedTopics, topic) {
			t.Errorf("the router reads %q, which is not in ConsumedTopics %v: its commits would wake no one", topic, ConsumedTopics)
		}
	}
}
