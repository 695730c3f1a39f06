package main

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// periodicJob is work every formd process repeats at an interval until it
// stops: its tasks run one after another at once, then on every tick.
type periodicJob struct {
	name  string
	every time.Duration
	tasks []task
	// untilLeave: the job runs through the drain, until the process has
	// released its claims (the heartbeat that keeps them its own).
	untilLeave bool
}

// task is one step of a periodic job: an application command that says
// how many records it handled.
type task struct {
	run func(ctx context.Context) (int, error)
	// failed is the warning logged with the error; a failure does not stop
	// the job's other tasks, and the next tick tries again.
	failed string
	// done is logged at level with the count when it is positive; "" logs nothing.
	done  string
	level slog.Level
	// attrs are added to both lines.
	attrs []any
}

// ticker is the part of time.Ticker a periodic job needs, so tests can tick by hand.
type ticker interface {
	C() <-chan time.Time
	Stop()
}

type timeTicker struct{ *time.Ticker }

func (t timeTicker) C() <-chan time.Time { return t.Ticker.C }

// periodicRunner runs periodic jobs and logs their failures and counts.
type periodicRunner struct {
	log       *slog.Logger
	newTicker func(time.Duration) ticker
}

func newPeriodicRunner(log *slog.Logger) periodicRunner {
	return periodicRunner{log: log, newTicker: func(d time.Duration) ticker { return timeTicker{time.NewTicker(d)} }}
}

// start runs each job in a goroutine of its own until ctx ends; wait
// returns once they all stopped.
func (r periodicRunner) start(ctx context.Context, jobs ...periodicJob) (wait func()) {
	var wg sync.WaitGroup
	for _, job := range jobs {
		wg.Go(func() { r.run(ctx, job) })
	}
	return wg.Wait
}

// run runs job until ctx ends.
func (r periodicRunner) run(ctx context.Context, job periodicJob) {
	t := r.newTicker(job.every)
	defer t.Stop()
	for {
		for _, task := range job.tasks {
			r.runTask(ctx, task)
		}
		select {
		case <-ctx.Done():
			r.log.Debug("periodic job stopped", "job", job.name)
			return
		case <-t.C():
		}
	}
}

// runTask runs one task and logs its outcome. A failure while formd stops
// is not logged: it is the stop, not a fault.
func (r periodicRunner) runTask(ctx context.Context, task task) {
	n, err := task.run(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		r.log.Warn(task.failed, append(slices.Clip(task.attrs), "err", err)...)
	case n > 0 && task.done != "":
		r.log.Log(ctx, task.level, task.done, append(slices.Clip(task.attrs), "count", n)...)
	}
}
