package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/formd/formd/adapters/postgres"
)

func serve(ctx context.Context, cfg Config, log *slog.Logger) error {
	// Before anything connects or listens: the one line main prints says
	// what to set.
	if err := cfg.requireSecretKey(); err != nil {
		return err
	}
	if err := cfg.checkFolders(); err != nil {
		return err
	}
	// The address first, so a port already taken stops formd before it
	// connects, migrates or starts any work; and whatever serve returns
	// from, the background work it started stops with it. Otherwise a formd
	// that could not bind could keep its workers running on a closed pool and
	// never exit, while another process answered on its port.
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("FORMD_LISTEN_ADDR %s: cannot listen there: %w", cfg.ListenAddr, err)
	}
	defer ln.Close()
	ctx, stopWork := context.WithCancel(ctx)
	defer stopWork()
	svc, cleanup, err := buildService(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer cleanup()
	if err := postgres.Migrate(ctx, svc.Pool); err != nil {
		return err
	}
	if cfg.DebugAddr != "" {
		go serveDebug(cfg.DebugAddr, log)
	}
	if cfg.MetricsAddr != "" {
		stopMetrics, err := serveMetrics(cfg.MetricsAddr, svc.Metrics.Handler(log), log)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	// The first heartbeat is written before anything claims: a process
	// killed before its first beat would hold its claims (a submission's
	// handed-off deliveries among them) for the whole lease, where once it
	// has beaten, other processes release them within DeadAfter.
	if err := svc.Sweeps.Heartbeat.Handle(ctx); err != nil {
		return fmt.Errorf("formd: recording this process's delivery heartbeat: %w", err)
	}
	go svc.Wakers.Listen(ctx, svc.Pool, log)
	routers := &runningRouter{current: svc.Router}
	go routers.run(ctx, svc.NewRouter, log)
	workersDone := make(chan struct{})
	go func() {
		defer close(workersDone)
		svc.Router.RunDeliveryWorkers(ctx, cfg.DeliveryWorkers, shutdownGrace, log)
	}()
	waitJobs := newPeriodicRunner(log).start(ctx, periodicJobs(svc.Sweeps, cfg.UploadSweepInterval)...)
	jobsDone := make(chan struct{})
	go func() {
		defer close(jobsDone)
		waitJobs()
	}()
	if cfg.TelegramBotToken != "" {
		go pollTelegram(ctx, svc.ConnectTelegramChats, log)
	}

	srv := &http.Server{Handler: svc.Handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second, MaxHeaderBytes: 64 << 10}
	b := currentBuild()
	log.Info("formd listening", "addr", ln.Addr().String(), "baseURL", cfg.BaseURL, "version", b.Version, "commit", b.Commit)
	serveDone := make(chan error, 1)
	go func() { serveDone <- srv.Serve(ln) }()

	select {
	case <-ctx.Done():
	case err := <-serveDone:
		return err
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	svc.Later.Wait(shutdownCtx)
	routers.close()
	for _, done := range []chan struct{}{workersDone, jobsDone} {
		select { // the delivery workers finish the attempts they are making, the sweeps their task
		case <-done:
		case <-shutdownCtx.Done():
		}
	}
	if leaveErr := svc.Deliveries.Leave(context.WithoutCancel(ctx), time.Now()); leaveErr != nil {
		log.Warn("releasing this process's delivery claims", "err", leaveErr)
	}
	return err
}

// shutdownGrace bounds how long in-flight requests may finish at shutdown.
const shutdownGrace = 15 * time.Second

// serveDebug serves pprof profiles on addr for performance work.
func serveDebug(addr string, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Info("debug server listening", "addr", addr)
	if err := srv.ListenAndServe(); err != nil {
		log.Warn("debug server stopped", "err", err)
	}
}
