// Package watermillpg carries stored events to consumers through watermill-sql
// on PostgreSQL: subscribers per consumer group, woken by LISTEN/NOTIFY as soon
// as an append commits instead of waiting for the next poll.
package watermillpg

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Transport is what the event store publishes into: the message and offset
// tables (created by migrations) and the LISTEN/NOTIFY channel on which a
// committed append names its topic. cmd/formd passes the postgres adapter's,
// so this adapter never imports another.
type Transport struct {
	Schema  wsql.SchemaAdapter
	Offsets wsql.OffsetsAdapter
	Channel string
}

// PollInterval bounds how long an idle subscriber waits without a wake-up:
// a message can stay invisible after its NOTIFY while an older transaction is
// still open, and a dropped LISTEN connection must not stall delivery.
const PollInterval = 250 * time.Millisecond

// GatherDelay is the pause after a batch of messages before the next query.
const GatherDelay = 20 * time.Millisecond

// Waker tells idle subscribers that a transaction committed new messages.
type Waker struct {
	mu  sync.Mutex
	seq uint64
	ch  chan struct{}
}

// NewWaker builds a waker; Wakers.Listen wakes it when its topic is notified.
func NewWaker() *Waker { return &Waker{ch: make(chan struct{})} }

// Wake ends every current wait.
func (w *Waker) Wake() {
	w.mu.Lock()
	w.seq++
	close(w.ch)
	w.ch = make(chan struct{})
	w.mu.Unlock()
}

// Next returns a channel closed by the next Wake. Take it before looking for
// work, then wait on it: a wake-up in between is not lost.
func (w *Waker) Next() <-chan struct{} {
	_, ch := w.state()
	return ch
}

func (w *Waker) state() (uint64, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seq, w.ch
}

// Wakers hold one Waker per topic, so a commit wakes only the subscribers
// (and workers) of the topics it published to.
type Wakers struct {
	channel string
	mu      sync.Mutex
	m       map[string]*Waker
}

// NewWakers builds the per-topic wakers of the transport's channel; call
// Listen to hear commits.
func NewWakers(t Transport) *Wakers { return &Wakers{channel: t.Channel, m: map[string]*Waker{}} }

// For returns the waker of topic (a NOTIFY payload).
func (ws *Wakers) For(topic string) *Waker {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w, ok := ws.m[topic]
	if !ok {
		w = NewWaker()
		ws.m[topic] = w
	}
	return w
}

func (ws *Wakers) wakeAll() {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, w := range ws.m {
		w.Wake()
	}
}

// Listen holds a connection on LISTEN to the transport's channel until ctx ends, waking the
// waker each notification names; after a lost connection it wakes them all.
func (ws *Wakers) Listen(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) {
	for ctx.Err() == nil {
		err := ws.listenOnce(ctx, pool)
		if ctx.Err() != nil {
			return
		}
		log.Warn("event listener lost its connection; retrying", "err", err)
		ws.wakeAll() // whatever was notified meanwhile is looked for at once
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (ws *Wakers) listenOnce(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	// The channel is a constant of the wiring, never input: no quoting needed.
	if _, err := conn.Exec(ctx, "LISTEN "+ws.channel); err != nil {
		return err
	}
	defer conn.Exec(context.Background(), "UNLISTEN *") //nolint:errcheck // best effort before the conn returns to the pool
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return err
		}
		ws.For(n.Payload).Wake()
	}
}

// backoff is a wsql.BackoffManager that, when a query found nothing, waits for
// a wake-up (or PollInterval) instead of sleeping a fixed second.
type backoff struct {
	waker    *Waker
	lastSeen atomic.Uint64
	fallback wsql.BackoffManager
}

func (b *backoff) HandleError(logger watermill.LoggerAdapter, noMsg bool, err error) time.Duration {
	if err != nil {
		return b.fallback.HandleError(logger, noMsg, err)
	}
	if !noMsg {
		// Let a few more commits land before the next query: under load this
		// turns many one-message transactions into a few large ones.
		return GatherDelay
	}
	seq, ch := b.waker.state()
	if b.lastSeen.Swap(seq) != seq { // something committed while we were querying: look again now
		return 0
	}
	select {
	case <-ch:
	case <-time.After(PollInterval):
	}
	seq, _ = b.waker.state()
	b.lastSeen.Store(seq)
	return GatherDelay
}

// NewSubscriber builds a subscriber for one consumer group. Each group sees
// every message of a topic once, in order.
func NewSubscriber(pool *pgxpool.Pool, t Transport, waker *Waker, group string, logger watermill.LoggerAdapter) (*wsql.Subscriber, error) {
	ack := 30 * time.Second
	return wsql.NewSubscriber(wsql.BeginnerFromPgx(pool), wsql.SubscriberConfig{
		ConsumerGroup:  group,
		AckDeadline:    &ack,
		SchemaAdapter:  t.Schema,
		OffsetsAdapter: t.Offsets,
		BackoffManager: &backoff{waker: waker, fallback: wsql.NewDefaultBackoffManager(PollInterval, time.Second)},
		ResendInterval: time.Second,
	}, logger)
}
