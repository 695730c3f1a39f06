package application

import (
	"encoding/json"
	"time"

	"github.com/formd/formd/domain/delivery"
)

// Topics: every stream type's events are published on a topic of the same
// name, so a consumer group subscribes to the streams it cares about, except
// the outcomes of deliveries (TopicOf).
const (
	TopicForm            = "form"
	TopicAccount         = "account"
	TopicVerification    = "verification"
	TopicSubmission      = "submission"
	TopicDelivery        = "delivery"
	TopicDeliveryOutcome = "delivery_outcome"
)

// Topics are every topic formd publishes to.
var Topics = []string{TopicForm, TopicAccount, TopicVerification, TopicSubmission, TopicDelivery, TopicDeliveryOutcome}

// TopicOf is the topic an event of the stream type is published on. A
// delivery's outcomes (attempted, succeeded, failed, retried…) go on a
// topic of their own: the delivery topic's consumer group, which queues
// deliveries, reads only delivery.queued, and every other delivery event
// would cost it a wake-up, a read and an acknowledgement per delivery.
func TopicOf(streamType, eventType string) string {
	if streamType == TopicDelivery && eventType != delivery.QueuedType {
		return TopicDeliveryOutcome
	}
	return streamType
}

// EventMessage is the envelope of a stored event as the event store publishes
// it and the event router receives it. The event store publishes a
// reference: the stream, version and type of the event, without its Data
// and Metadata, which stay in the event store alone; a consumer that needs
// them reads them there by stream and version (IsReference), in the
// transaction that acknowledges the message. Messages published before
// that carry both. Data is the event's stored JSON, which the router decodes
// into the domain event its type names.
type EventMessage struct {
	StreamType string `json:"streamType"`
	StreamID   string `json:"streamId"`
	Version    int    `json:"version"`
	Type       string `json:"type"`
	// SchemaVersion is the version of Data's stored shape; the event store's
	// codec upcasts older shapes when it decodes.
	SchemaVersion int             `json:"schemaVersion"`
	Data          json.RawMessage `json:"data,omitempty"`
	Metadata      Metadata        `json:"metadata,omitzero"`
	RecordedAt    time.Time       `json:"recordedAt"`
	// AlreadyQueued says, of a delivery.queued event, that its delivery was
	// written to the delivery queue in the event's own transaction, so the
	// queue's consumer group has nothing to write. formd set it on a
	// submission's deliveries until submission.accepted queued them itself
	// (no delivery.queued event since); it stays for the messages such a
	// formd published. Messages from before the field lack it and are
	// queued by the consumer as before.
	AlreadyQueued bool `json:"alreadyQueued,omitempty"`
}

// IsReference says the message refers to its stored event without carrying
// its data (see EventMessage).
func (e EventMessage) IsReference() bool { return len(e.Data) == 0 }
