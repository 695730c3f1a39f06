// Package events is the driving port that receives stored events from
// Watermill and hands them to application handlers: each handler is its own
// consumer group, so it sees every event once, in order.
package events

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/watermillpg"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/verification"
)

// Consumer group names; renaming one replays its topic from the start.
const (
	GroupVerificationMailer = "verification-mailer"
	GroupDelivery           = "delivery-worker"
)

// Router runs the event handlers.
type Router struct {
	*message.Router
	deliver *application.DeliverHandler
}

// NewRouter subscribes each handler as its own consumer group.
func NewRouter(pool *pgxpool.Pool, waker *watermillpg.Waker, logger watermill.LoggerAdapter,
	mailer *application.SendVerificationEmailHandler, deliver *application.DeliverHandler) (*Router, error) {
	r, err := message.NewRouter(message.RouterConfig{CloseTimeout: 10 * time.Second}, logger)
	if err != nil {
		return nil, err
	}
	r.AddMiddleware(middleware.Recoverer)
	sub, err := watermillpg.NewSubscriber(pool, waker, GroupVerificationMailer, logger)
	if err != nil {
		return nil, err
	}
	r.AddConsumerHandler(GroupVerificationMailer, postgres.StreamVerification, sub, func(msg *message.Message) error {
		e, err := decode(msg)
		if err != nil || e.Type != verification.RequestedType {
			return err
		}
		var req verification.Requested
		if err := json.Unmarshal(e.Data, &req); err != nil {
			return fmt.Errorf("decode %s: %w", e.Type, err)
		}
		ctx, cancel := context.WithTimeout(msg.Context(), 30*time.Second)
		defer cancel()
		return mailer.Handle(ctx, req)
	})
	deliveries, err := watermillpg.NewSubscriber(pool, waker, GroupDelivery, logger)
	if err != nil {
		return nil, err
	}
	r.AddConsumerHandler(GroupDelivery, postgres.StreamDelivery, deliveries, func(msg *message.Message) error {
		e, err := decode(msg)
		if err != nil || e.Type != delivery.QueuedType {
			return err
		}
		var q delivery.Queued
		if err := json.Unmarshal(e.Data, &q); err != nil {
			return fmt.Errorf("decode %s: %w", e.Type, err)
		}
		ctx, cancel := context.WithTimeout(msg.Context(), 25*time.Second) // within the 30 s ack deadline
		defer cancel()
		return deliver.Handle(ctx, q)
	})
	return &Router{Router: r, deliver: deliver}, nil
}

// RetryLoop re-attempts due deliveries until ctx ends.
func (r *Router) RetryLoop(ctx context.Context, log *slog.Logger) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for {
			n, err := r.deliver.RetryDue(ctx, 50)
			if err != nil {
				log.Warn("retrying due deliveries", "err", err)
			}
			if err != nil || n < 50 {
				break
			}
		}
	}
}

func decode(msg *message.Message) (postgres.StoredEvent, error) {
	var e postgres.StoredEvent
	if err := json.Unmarshal(msg.Payload, &e); err != nil {
		return e, fmt.Errorf("decode stored event: %w", err)
	}
	return e, nil
}
