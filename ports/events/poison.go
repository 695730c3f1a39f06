package events

import (
	"errors"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/formd/formd/application"
)

// poison is the router's answer to a message a handler can never process.
// Each consumer group handles its topic in order and retries a failed
// message until it succeeds, so one such message would stall every message
// behind it for good. A failure that is permanent (application.ErrPermanent:
// the message cannot be decoded, or the handler refused it for good) or a
// panic is recorded with the message, logged once, and acknowledged; the
// record is written in the acknowledging transaction. Any other failure is
// returned and retried: a database outage must hold messages, not drop them.
func poison(record *application.RecordPoisonedMessageHandler, logger watermill.LoggerAdapter) message.HandlerMiddleware {
	if record == nil {
		panic("events: nil RecordPoisonedMessage")
	}
	return func(h message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			out, err := h(msg)
			if err == nil || !forGood(err) {
				return out, err
			}
			ctx := msg.Context()
			p := application.PoisonedMessage{
				Group:     message.HandlerNameFromCtx(ctx),
				Topic:     message.SubscribeTopicFromCtx(ctx),
				MessageID: msg.UUID,
				Payload:   msg.Payload,
				Reason:    err.Error(),
			}
			if rerr := record.Handle(ctx, application.RecordPoisonedMessage{Message: p}); rerr != nil {
				// Not recorded, so not skipped: the message is retried.
				return nil, errors.Join(err, rerr)
			}
			logger.Error("skipped a message its handler can never process; it is kept in poisoned_messages", err,
				watermill.LogFields{"group": p.Group, "topic": p.Topic, "message_uuid": p.MessageID})
			return nil, nil
		}
	}
}

// forGood reports whether a handler's failure can never turn into success by
// retrying the same message.
func forGood(err error) bool {
	var panicked middleware.RecoveredPanicError
	return errors.Is(err, application.ErrPermanent) || errors.As(err, &panicked)
}
