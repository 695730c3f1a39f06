package application

import "context"

// RecordPoisonedMessage is an event message its consumer group failed on
// for good (it cannot be decoded, or its handler refused it permanently).
type RecordPoisonedMessage struct {
	Message PoisonedMessage
}

// RecordPoisonedMessageHandler keeps such messages aside. A consumer group
// handles its topic in order, so a message it retried forever would hold up
// every message behind it; once recorded, the group acknowledges it and
// moves on, and an operator can still read what was skipped and why.
type RecordPoisonedMessageHandler struct {
	poisoned PoisonedMessages
}

// NewRecordPoisonedMessageHandler builds the handler; every dependency is required.
func NewRecordPoisonedMessageHandler(poisoned PoisonedMessages) *RecordPoisonedMessageHandler {
	if poisoned == nil {
		panic("application: nil dependency of RecordPoisonedMessageHandler")
	}
	return &RecordPoisonedMessageHandler{poisoned: poisoned}
}

// Handle records the message. ctx is the message's: the record is written in
// the transaction that acknowledges it.
func (h *RecordPoisonedMessageHandler) Handle(ctx context.Context, cmd RecordPoisonedMessage) error {
	return h.poisoned.Record(ctx, cmd.Message)
}
