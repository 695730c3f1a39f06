package main

import (
	"context"
	"log/slog"
	"sync"
)

// backgroundWork is what `formd serve` runs beside HTTP: the event router,
// the delivery workers with their wake-ups, the sweeps, the Telegram poller,
// and the heartbeat that keeps this process's delivery claims its own.
type backgroundWork struct {
	stopClaiming func() // everything but the heartbeat
	stopBeating  func()
	routers      *runningRouter
	claiming     sync.WaitGroup // the delivery workers and the sweeps
	beating      sync.WaitGroup
	stopOnce     sync.Once
}

// startWork starts the background work on ctx.
func startWork(ctx context.Context, cfg Config, svc *Service, log *slog.Logger) *backgroundWork {
	claimCtx, stopClaiming := context.WithCancel(ctx)
	beatCtx, stopBeating := context.WithCancel(ctx)
	w := &backgroundWork{stopClaiming: stopClaiming, stopBeating: stopBeating,
		routers: &runningRouter{current: svc.Router}}
	go svc.Wakers.Listen(claimCtx, svc.Pool, log)
	go w.routers.run(claimCtx, svc.NewRouter, log)
	w.claiming.Go(func() {
		// An attempt under way finishes after claimCtx ends; its outcome
		// is recorded within the shutdown timeout.
		svc.Router.RunDeliveryWorkers(claimCtx, cfg.DeliveryWorkers, cfg.ShutdownTimeout, log)
	})
	var sweeps, untilLeave []periodicJob
	for _, job := range periodicJobs(svc.Sweeps, cfg.UploadSweepInterval) {
		if job.untilLeave {
			untilLeave = append(untilLeave, job)
		} else {
			sweeps = append(sweeps, job)
		}
	}
	runner := newPeriodicRunner(log)
	w.claiming.Go(runner.start(claimCtx, sweeps...))
	w.beating.Go(runner.start(beatCtx, untilLeave...))
	if cfg.TelegramBotToken != "" {
		go pollTelegram(claimCtx, svc.ConnectTelegramChats, log)
	}
	return w
}

// wait stops the router (its handlers in flight finish) and waits until
// the delivery workers and the sweeps have stopped, or ctx ends; it reports
// whether they stopped.
func (w *backgroundWork) wait(ctx context.Context) bool {
	w.stopClaiming()
	w.routers.close()
	done := make(chan struct{})
	go func() {
		w.claiming.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// stop stops everything, the heartbeat last, and waits for the heartbeat:
// the pool it beats on closes next.
func (w *backgroundWork) stop() {
	w.stopOnce.Do(func() {
		w.stopClaiming()
		w.routers.close()
		w.stopBeating()
		w.beating.Wait()
	})
}
