package system

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// backgroundTimeout bounds one piece of background work.
const backgroundTimeout = time.Minute

// Background implements application.Later with a goroutine per piece of
// work, logging what fails (by name, never its data).
type Background struct{ log *slog.Logger }

// NewBackground builds the runner; failures go to log.
func NewBackground(log *slog.Logger) *Background { return &Background{log: log} }

// Go runs work on its own goroutine, detached from the request that asked
// for it, within backgroundTimeout.
func (b *Background) Go(name string, work func(ctx context.Context) error) {
	go func() {
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
