// Command formd is the form backend: `formd` (or `formd serve`) runs the HTTP
// service and event handlers, `formd migrate` applies migrations, and
// `formd grant <email> <feature>` grants a paid/manual entitlement.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"os/user"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/watermillpg"
	"github.com/formd/formd/application"
	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "formd:", err)
		os.Exit(1)
	}
}

// defaultGCPercent trades memory for CPU: formd's heap is small and
// short-lived, so collecting less often frees CPU for requests. GOGC overrides it.
const defaultGCPercent = 400

func run(args []string) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	log := newLogger(cfg.LogLevel)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	cmd := "serve"
	if len(args) > 0 {
		cmd = args[0]
	}
	switch cmd {
	case "serve":
		return serve(ctx, cfg, log)
	case "migrate":
		return withPool(ctx, cfg, func(pool *pgxpool.Pool) error { return postgres.Migrate(ctx, pool) })
	case "grant":
		if len(args) != 3 {
			return errors.New("usage: formd grant <account email> <feature>")
		}
		return grant(ctx, cfg, log, args[1], args[2])
	default:
		return fmt.Errorf("unknown command %q (serve, migrate, grant)", cmd)
	}
}

// grant runs `formd grant` as an application command, so the grant is an
// event on the account's stream with the operator as its actor.
func grant(ctx context.Context, cfg Config, log *slog.Logger, email, feature string) error {
	h, cleanup, err := buildGrant(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer cleanup()
	return h.Handle(ctx, application.GrantFeature{Email: email, Feature: feature, Operator: operator()})
}

// operator names who runs the command line: the OS user, else "cli".
func operator() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "cli"
}

func withPool(ctx context.Context, cfg Config, fn func(*pgxpool.Pool) error) error {
	pool, err := postgres.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	return fn(pool)
}

func serve(ctx context.Context, cfg Config, log *slog.Logger) error {
	// Before anything connects or listens: the one line main prints says
	// what to set.
	if err := cfg.requireSecretKey(); err != nil {
		return err
	}
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
	go svc.Wakers.Listen(ctx, svc.Pool, log)
	routerDone := make(chan error, 1)
	// The router stops through Close at shutdown, not by cancellation, so
	// in-flight handler transactions finish instead of failing noisily.
	go func() { routerDone <- svc.Router.Run(context.WithoutCancel(ctx)) }()
	go svc.Router.RunDeliveryWorkers(ctx, cfg.DeliveryWorkers, log)
	go maintain(ctx, svc.Pool, log)

	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: svc.Handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second, MaxHeaderBytes: 64 << 10}
	log.Info("formd listening", "addr", ln.Addr().String(), "baseURL", cfg.BaseURL)
	serveDone := make(chan error, 1)
	go func() { serveDone <- srv.Serve(ln) }()

	select {
	case <-ctx.Done():
	case err := <-serveDone:
		return err
	case err := <-routerDone:
		if err != nil {
			return fmt.Errorf("event router stopped: %w", err)
		}
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	_ = svc.Router.Close()
	return err
}

// maintain prunes expired Idempotency-Key records and acknowledged Watermill
// messages, hourly. Several processes may run it at once: both deletes are
// idempotent.
func maintain(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if n, err := postgres.PruneIdempotencyKeys(ctx, pool); err != nil && ctx.Err() == nil {
			log.Warn("pruning idempotency keys", "err", err)
		} else if n > 0 {
			log.Info("pruned idempotency keys", "count", n)
		}
		for _, topic := range application.Topics {
			if n, err := watermillpg.Prune(ctx, pool, topic); err != nil && ctx.Err() == nil {
				log.Warn("pruning acknowledged messages", "topic", topic, "err", err)
			} else if n > 0 {
				log.Info("pruned acknowledged messages", "topic", topic, "count", n)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
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
