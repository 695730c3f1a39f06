package application

import "context"

// PoisonedMessages keeps the event messages a consumer group can never
// handle, so the group records them and moves on instead of stalling.
type PoisonedMessages interface {
	// Record keeps the message in the transaction of the event message that
	// ctx carries, the one that acknowledges it: the message is skipped if
	// and only if it is recorded.
	Record(ctx context.Context, p PoisonedMessage) error
}

// PoisonedMessage is an event message a consumer group failed on for good.
type PoisonedMessage struct {
	// Group is the consumer group (the handler's name), Topic its topic.
	Group, Topic string
	// MessageID is Watermill's message uuid.
	MessageID string
	Payload   []byte
	// Reason is the handler's error.
	Reason string
}
