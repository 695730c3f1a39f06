// Package events is the driving port that receives stored events from
// Watermill and hands them to application handlers: each handler is its own
// consumer group, so it sees every event once, in order.
package events

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
)

// Consumer group names; renaming one replays its topic from the start.
const (
	GroupDeliveryQueue = "delivery-queue"
)

// ConsumedTopics are the topics formd's consumer groups read: the only ones
// whose subscribers a commit needs to wake (cmd/formd tells the event store).
var ConsumedTopics = []string{application.TopicDelivery}

// GroupVerificationMailer is a reserved consumer group name: verification
// mails are deliveries, and no group reads the verification topic. A group
// under this name would read the topic from its start and act on every
// verification still in it.
const GroupVerificationMailer = "verification-mailer"

// Subscribe builds the subscriber of one consumer group on one topic.
// cmd/formd provides it (watermill-sql on PostgreSQL, woken by NOTIFY), so
// this port sees no adapter.
type Subscribe func(topic, group string) (message.Subscriber, error)

// DeliveriesDue returns a channel that is closed when deliveries may have
// become due (a delivery was queued); take it before looking for work.
type DeliveriesDue func() <-chan struct{}

// Decode turns the event a message carries into its domain event through
// the event store's stored shapes (upcasting older schema versions), reading
// the event from the store when the message only refers to it, in the
// message's transaction (on ctx). cmd/formd provides it, so this port reads
// events as the store wrote them without knowing how.
type Decode func(ctx context.Context, e application.EventMessage) (any, error)

// Router runs the event handlers.
type Router struct {
	*message.Router
	deliver *application.DeliverHandler
	due     DeliveriesDue
	// handOff is where this process's submissions hand their committed
	// deliveries to its delivery workers.
	handOff *DeliveryHandOff
}

// NewRouter subscribes each handler as its own consumer group. A message a
// handler fails on for good is recorded and acknowledged (see poison), so no
// message holds up its group; any other failure is retried, as a database
// outage should be.
func NewRouter(app *application.Application, subscribe Subscribe, due DeliveriesDue, decodeEvent Decode, logger watermill.LoggerAdapter,
	handOff *DeliveryHandOff) (*Router, error) {
	r, err := message.NewRouter(message.RouterConfig{CloseTimeout: 10 * time.Second}, logger)
	if err != nil {
		return nil, err
	}
	// poison wraps Recoverer, so a handler that panics on a message is
	// recorded and moves on too.
	r.AddMiddleware(poison(app.Commands.RecordPoisonedMessage, logger), middleware.Recoverer)
	deliveries, err := subscribe(application.TopicDelivery, GroupDeliveryQueue)
	if err != nil {
		return nil, err
	}
	// Queued deliveries are projected into the queue in the transaction that
	// acknowledges them (the message context carries it); the delivery
	// workers claim them from there concurrently. Verification mails are
	// deliveries too, queued with their verification.
	queue := app.Commands.QueueDelivery
	// A submission's deliveries are written to the queue by its commit,
	// with no delivery.queued event (an older formd's event says so:
	// e.AlreadyQueued); the others (verification mails, integration tests)
	// are queued here.
	r.AddConsumerHandler(GroupDeliveryQueue, application.TopicDelivery, deliveries, func(msg *message.Message) error {
		e, err := decode(msg)
		if err != nil || e.Type != delivery.QueuedType || e.AlreadyQueued {
			return err
		}
		q, err := decodeAs[delivery.Queued](msg.Context(), decodeEvent, e)
		if err != nil {
			return err
		}
		return queue.Handle(msg.Context(), application.QueueDelivery{Queued: q})
	})
	return &Router{Router: r, deliver: app.Commands.Deliver, due: due, handOff: handOff}, nil
}

// decode reads a message's envelope. A message that cannot be read never
// will be: the failure is permanent.
func decode(msg *message.Message) (application.EventMessage, error) {
	var e application.EventMessage
	if err := json.Unmarshal(msg.Payload, &e); err != nil {
		return e, fmt.Errorf("%w: decode stored event: %v", application.ErrPermanent, err)
	}
	return e, nil
}

// decodeAs decodes e into the domain event type E; like decode, a failure is
// permanent (an unknown type or schema version is for an operator to see).
func decodeAs[E any](ctx context.Context, decodeEvent Decode, e application.EventMessage) (E, error) {
	var zero E
	v, err := decodeEvent(ctx, e)
	if err != nil {
		return zero, fmt.Errorf("%w: decode %s: %v", application.ErrPermanent, e.Type, err)
	}
	out, ok := v.(E)
	if !ok {
		return zero, fmt.Errorf("%w: decode %s: got %T", application.ErrPermanent, e.Type, v)
	}
	return out, nil
}
