package features_test

// The suite's connection budget. Four Ginkgo processes run formds side by
// side on one PostgreSQL with its default 100 connections; a CI run once
// failed with "sorry, too many clients already" when a change made each
// formd hold more of them. Process 1 watches the test databases' connections
// for the whole run and fails the suite when their peak leaves too little
// headroom, so a creeping footprint fails here, every run, rather than as a
// random spec on a busier machine.

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/adapters/postgres/pgtest"
)

// connectionBudget is the most connections the test databases may hold at
// once: 80 of PostgreSQL's 100, the rest headroom for a busier machine's
// timing, the template build and a developer's own sessions.
const connectionBudget = 80

// connectionWatch samples the number of connections to the test databases.
type connectionWatch struct {
	stop context.CancelFunc
	done chan struct{}

	mu     sync.Mutex
	peak   int
	peakAt time.Time
	err    error
}

// watchConnections starts sampling every 50 ms on a connection of its own.
func watchConnections() *connectionWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &connectionWatch{stop: cancel, done: make(chan struct{})}
	go w.run(ctx)
	return w
}

func (w *connectionWatch) run(ctx context.Context) {
	defer close(w.done)
	conn, err := pgx.Connect(ctx, pgtest.AdminURL())
	if err != nil {
		w.mu.Lock()
		w.err = err
		w.mu.Unlock()
		return
	}
	defer conn.Close(context.Background())
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var n int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname LIKE 'formd\_test\_%'`).Scan(&n)
		w.mu.Lock()
		if err == nil && n > w.peak {
			w.peak, w.peakAt = n, time.Now()
		}
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Peak stops the watch and returns the highest count it saw and when.
func (w *connectionWatch) Peak() (int, time.Time, error) {
	w.stop()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peak, w.peakAt, w.err
}
