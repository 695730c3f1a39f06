package application

import (
	"context"
	"time"
)

// AcknowledgedMessages deletes the transport's messages of a topic that
// every consumer group has acknowledged or, when no group reads the topic,
// that are older than unread; the event store keeps every event.
type AcknowledgedMessages interface {
	PruneMessages(ctx context.Context, topic string, unread time.Duration) (int64, error)
}

// UnreadMessageRetention is how long the messages of a topic no consumer
// group reads are kept (FORMD_UNREAD_MESSAGE_RETENTION).
type UnreadMessageRetention time.Duration

// PruneMessages is the command to prune one topic's messages.
type PruneMessages struct{ Topic string }

// PruneMessagesHandler prunes the messages of one of Topics. Several
// processes may run it at once: the deletes are idempotent.
type PruneMessagesHandler struct {
	messages AcknowledgedMessages
	unread   time.Duration
}

// NewPruneMessagesHandler builds the handler; messages is required.
func NewPruneMessagesHandler(messages AcknowledgedMessages, unread UnreadMessageRetention) *PruneMessagesHandler {
	if messages == nil {
		panic("application: nil dependency of PruneMessagesHandler")
	}
	return &PruneMessagesHandler{messages: messages, unread: time.Duration(unread)}
}

// Handle says how many messages of the topic went.
func (h *PruneMessagesHandler) Handle(ctx context.Context, cmd PruneMessages) (int, error) {
	n, err := h.messages.PruneMessages(ctx, cmd.Topic, h.unread)
	return int(n), err
}
