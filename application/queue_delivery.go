package application

import (
	"context"
	"fmt"

	"github.com/formd/formd/domain/delivery"
)

// QueueDelivery is a delivery.queued event arriving through its consumer group.
type QueueDelivery struct {
	Queued delivery.Queued
}

// QueueDeliveryHandler projects queued deliveries into the queue delivery
// workers claim from, rather than sending from the ordered consumer group:
// one slow receiver would otherwise hold up every delivery behind it.
type QueueDeliveryHandler struct {
	queue DeliveryQueue
}

// NewQueueDeliveryHandler builds the handler; every dependency is required.
func NewQueueDeliveryHandler(queue DeliveryQueue) *QueueDeliveryHandler {
	if queue == nil {
		panic("application: nil dependency of QueueDeliveryHandler")
	}
	return &QueueDeliveryHandler{queue: queue}
}

// Handle queues the delivery, due at once. ctx is the message's: the queue
// writes in the transaction that acknowledges it, so a delivery is queued
// once however often the message is redelivered.
//
// An event that names nothing to send is refused as a permanent failure
// before anything is written, so its consumer group records it and moves on.
func (h *QueueDeliveryHandler) Handle(ctx context.Context, cmd QueueDelivery) error {
	if err := cmd.Queued.Check(); err != nil {
		return fmt.Errorf("%w: %v", ErrPermanent, err)
	}
	return h.queue.Queue(ctx, cmd.Queued)
}
