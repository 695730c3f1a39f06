package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/formd/formd/ports/events"
)

// runningRouter keeps the event router running: when it stops on an error
// (the database went away, say), a new one is built and run after a backoff,
// so formd keeps answering HTTP (GET /readyz says 503) and its consumers
// resume where their offsets are once the database is back, instead of the
// whole process exiting.
type runningRouter struct {
	mu      sync.Mutex
	current *events.Router
	closed  bool
}

// run runs the current router, and its successors, until close.
func (r *runningRouter) run(ctx context.Context, build RouterFactory, log *slog.Logger) {
	backoff := time.Second
	for {
		r.mu.Lock()
		router, closed := r.current, r.closed
		r.mu.Unlock()
		if closed {
			return
		}
		var err error
		if router != nil {
			// The router stops through Close at shutdown, not by cancellation,
			// so in-flight handler transactions finish instead of failing noisily.
			err = router.Run(context.WithoutCancel(ctx))
		}
		r.mu.Lock()
		closed = r.closed
		r.current = nil
		r.mu.Unlock()
		if closed || ctx.Err() != nil {
			return
		}
		log.Error("event router stopped; starting a new one", "err", err, "after", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 30*time.Second)
		next, err := build()
		if err != nil {
			log.Error("event router could not be built", "err", err)
			continue
		}
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			_ = next.Close()
			return
		}
		r.current = next
		r.mu.Unlock()
	}
}

// close stops the running router and any restart.
func (r *runningRouter) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.current != nil {
		_ = r.current.Close()
	}
}
