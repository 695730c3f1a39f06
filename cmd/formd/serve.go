package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/formd/formd/adapters/postgres"
)

func serve(ctx context.Context, cfg Config, log *slog.Logger) error {
	// Before anything connects or listens: the one line main prints says
	// what to set.
	if err := cfg.requireSecretKey(); err != nil {
		return err
	}
	if err := cfg.requireAuditSigningKey(); err != nil {
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
	bound, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("FORMD_LISTEN_ADDR %s: cannot listen there: %w", cfg.ListenAddr, err)
	}
	ln := &onceListener{Listener: bound}
	defer ln.Close()
	// The service outlives the signal: the drain finishes requests and
	// delivery attempts on it, and stops the background work itself.
	alive := context.WithoutCancel(ctx)
	svc, cleanup, err := buildService(alive, cfg, log)
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
	work := startWork(alive, cfg, svc, log)
	defer work.stop()

	conns := newConnections()
	handler := &closingWhileDraining{drain: svc.Drain, next: svc.Handler}
	srv := &http.Server{Handler: handler, ConnState: conns.track, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 60 * time.Second, WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second, MaxHeaderBytes: 64 << 10}
	b := currentBuild()
	log.Info("formd listening", "addr", ln.Addr().String(), "baseURL", cfg.BaseURL, "version", b.Version, "commit", b.Commit)
	serveDone := make(chan error, 1)
	go func() { serveDone <- srv.Serve(ln) }()

	select {
	case <-ctx.Done():
	case err := <-serveDone:
		return err
	}
	exitOnSecondSignal(log)
	return drain(srv, ln, conns, handler, svc, work, cfg.ShutdownTimeout, log)
}

// drain shuts formd down within timeout: readiness turns to "draining" at
// once; the HTTP server stops accepting and finishes its requests
// (drain.go), while the delivery workers finish the attempts they are
// making and the sweeps stop; then this process's remaining claims are
// released, so what it could not finish stays queued for the next process.
// Work cut off at the deadline is logged, not an error: it is left queued
// all the same.
func drain(srv *http.Server, ln net.Listener, conns *connections, handler *closingWhileDraining,
	svc *Service, work *backgroundWork, timeout time.Duration, log *slog.Logger) error {
	began := time.Now()
	svc.Drain.Start()
	log.Info("draining", "connections", conns.count(), "requestsInFlight", handler.inFlight.Load(), "timeout", timeout.String())
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	work.stopClaiming()
	served := drainHTTP(ctx, srv, ln, conns, handler, drainIdleWait(timeout))
	svc.Later.Wait(ctx)
	workDone := work.wait(ctx)
	// Leave gets a moment of its own: claims it fails to release are
	// released by other processes once this one's heartbeat is DeadAfter old.
	leaveCtx, cancelLeave := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelLeave()
	leaveErr := svc.Deliveries.Leave(leaveCtx, time.Now())
	if leaveErr != nil {
		log.Warn("releasing this process's delivery claims", "err", leaveErr)
	}
	work.stop()
	attrs := []any{"after", time.Since(began).Round(time.Millisecond).String(), "connections", served.open,
		"claimsReleased", leaveErr == nil}
	if served.timedOut || !workDone {
		log.Warn("drained at the deadline (FORMD_SHUTDOWN_TIMEOUT): what was cut off stays queued",
			append(attrs, "requestsCut", served.cut, "backgroundWorkFinished", workDone)...)
		return nil
	}
	log.Info("drained", attrs...)
	return nil
}

// exitOnSecondSignal ends the process at once on a second SIGTERM or
// SIGINT during the drain (exit code 1): an operator who cannot wait gets
// what SIGKILL would give, with a line saying so. Claims still held are
// released by other processes once this one's heartbeat is DeadAfter old.
func exitOnSecondSignal(log *slog.Logger) {
	second := make(chan os.Signal, 1)
	signal.Notify(second, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-second
		log.Warn("second signal: exiting without finishing the drain")
		os.Exit(1)
	}()
}

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
