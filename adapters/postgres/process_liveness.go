package postgres

import (
	"context"
	"sync"
	"time"
)

// ProcessLiveness implements application.ProcessLiveness over the delivery
// store's heartbeat, with one rule more: a process whose own heartbeat or
// release just failed could not see the database, and so has no evidence
// that the other processes died rather than being cut off with it. For
// DeadAfter after such a failure it releases no one's claims, which gives
// the others time to beat again after an outage: releasing the claims of a
// live process whose outcomes wait to be recorded would send its deliveries
// a second time.
type ProcessLiveness struct {
	store *DeliveryStore
	mu    sync.Mutex
	// quietUntil is when this process may judge the others again.
	quietUntil time.Time
}

// NewProcessLiveness builds the liveness of the process that store claims
// for.
func NewProcessLiveness(store *DeliveryStore) *ProcessLiveness {
	return &ProcessLiveness{store: store}
}

// Heartbeat records that this process is alive (DeliveryStore.Heartbeat).
func (l *ProcessLiveness) Heartbeat(ctx context.Context, now time.Time) error {
	err := l.store.Heartbeat(ctx, now)
	l.failed(now, err)
	return err
}

// ReleaseDeadClaims releases the claims of the processes that stopped
// beating (DeliveryStore.ReleaseDeadClaims), unless this process itself
// failed to reach the database within DeadAfter.
func (l *ProcessLiveness) ReleaseDeadClaims(ctx context.Context, now time.Time) (int64, error) {
	l.mu.Lock()
	quiet := now.Before(l.quietUntil)
	l.mu.Unlock()
	if quiet {
		return 0, nil
	}
	n, err := l.store.ReleaseDeadClaims(ctx, now)
	l.failed(now, err)
	return n, err
}

func (l *ProcessLiveness) failed(now time.Time, err error) {
	if err == nil {
		return
	}
	l.mu.Lock()
	l.quietUntil = now.Add(DeadAfter)
	l.mu.Unlock()
}
