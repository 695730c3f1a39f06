package system

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
)

func TestBackgroundRunsWorkAndWaitsForIt(t *testing.T) {
	b := NewBackground(slog.New(slog.NewTextHandler(io.Discard, nil)))
	var ran atomic.Int32
	release := make(chan struct{})
	for range 3 {
		b.Go("test", func(context.Context) error {
			<-release
			ran.Add(1)
			return errors.New("logged, not returned")
		})
	}
	b.Go("panics", func(context.Context) error { panic("recovered") })
	close(release)
	b.Wait(context.Background())
	if ran.Load() != 3 {
		t.Fatalf("Wait returned after %d of 3 pieces of work", ran.Load())
	}
}
