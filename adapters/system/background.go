package system

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// backgroundTimeout bounds one piece of background work.
const backgroundTimeout = time.Minute

// Background implements application.Later with a goroutine per piece of
// work, logging what fails (by name, never its data).
type Background struct {
	log     *slog.Logger
	running sync.WaitGroup
}

// NewBackground builds the runner; failures go to log.
func NewBackground(log *slog.Logger) *Background { return &Background{log: log} }

// Go runs work on its own goroutine, detached from the request that asked
// for it, within backgroundTimeout.
func (b *Background) Go(name string, work func(ctx context.Context) error) {
	b.running.Add(1)
	go func() {
		defer b.running.Done()
		ctx, cancel := context.WithTimeout(context.Background(), backgroundTimeout)
		defer cancel()
		defer func() {
			if p := recover(); p != nil {
				b.log.Error("background work panicked", "work", name, "panic", fmt.Sprint(p))
			}
		}()
		if err := work(ctx); err != nil {
			b.log.Error("background work failed", "work", name, "err", err)
		}
	}()
}

// Wait waits until the work started so far has ended, or ctx ends (a
// shutdown: the HTTP server has stopped taking requests that start more).
func (b *Background) Wait(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		b.running.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
