// Package events is the driving port that receives stored events from
// Watermill and hands them to application handlers: each handler is its own
// consumer group, so it sees every event once, in order.
package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
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
	GroupDeliveryQueue      = "delivery-queue"
)

// Router runs the event handlers.
type Router struct {
	*message.Router
	deliver *application.DeliverHandler
	waker   *watermillpg.Waker
}

// NewRouter subscribes each handler as its own consumer group.
func NewRouter(pool *pgxpool.Pool, wakers *watermillpg.Wakers, logger watermill.LoggerAdapter,
	mailer *application.SendVerificationEmailHandler, deliver *application.DeliverHandler) (*Router, error) {
	r, err := message.NewRouter(message.RouterConfig{CloseTimeout: 10 * time.Second}, logger)
	if err != nil {
		return nil, err
	}
	r.AddMiddleware(middleware.Recoverer)
	sub, err := watermillpg.NewSubscriber(pool, wakers.For(postgres.StreamVerification), GroupVerificationMailer, logger)
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
	deliveries, err := watermillpg.NewSubscriber(pool, wakers.For(postgres.StreamDelivery), GroupDeliveryQueue, logger)
	if err != nil {
		return nil, err
	}
	// Queued deliveries are projected into the deliveries table in the
	// transaction that acknowledges them; the delivery workers claim them
	// from there concurrently (an ordered consumer group would send one at a
	// time, and a slow receiver would hold up every delivery behind it).
	r.AddConsumerHandler(GroupDeliveryQueue, postgres.StreamDelivery, deliveries, func(msg *message.Message) error {
		e, err := decode(msg)
		if err != nil || e.Type != delivery.QueuedType {
			return err
		}
		var q delivery.Queued
		if err := json.Unmarshal(e.Data, &q); err != nil {
			return fmt.Errorf("decode %s: %w", e.Type, err)
		}
		tx, ok := wsql.TxFromContext(msg.Context())
		if !ok {
			return errors.New("delivery projection needs the subscriber's transaction")
		}
		return postgres.QueueDelivery(msg.Context(), tx, q)
	})
	return &Router{Router: r, deliver: deliver, waker: wakers.For(postgres.DeliveriesDue)}, nil
}

// deliveryClaim is how many due deliveries a worker claims at once; their
// outcomes are recorded in one transaction.
const deliveryClaim = 16

// RunDeliveryWorkers runs n workers until ctx ends. Each claims a few due
// deliveries at a time (SKIP LOCKED), so workers of every process share the
// queue; idle workers sleep until a commit wakes them or a second passes
// (retries come due by the clock, not by a notification).
func (r *Router) RunDeliveryWorkers(ctx context.Context, n int, log *slog.Logger) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				wake := r.waker.Next()
				claimed, err := r.deliver.RunDue(ctx, deliveryClaim)
				if err != nil && ctx.Err() == nil {
					log.Warn("delivery attempt", "err", err)
				}
				if claimed > 0 && err == nil {
					continue
				}
				select {
				case <-ctx.Done():
				case <-wake:
				case <-time.After(time.Second):
				}
			}
		}()
	}
	wg.Wait()
}

func decode(msg *message.Message) (postgres.StoredEvent, error) {
	var e postgres.StoredEvent
	if err := json.Unmarshal(msg.Payload, &e); err != nil {
		return e, fmt.Errorf("decode stored event: %w", err)
	}
	return e, nil
}
