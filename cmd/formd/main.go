// Command formd is the form backend: `formd` (or `formd serve`) runs the HTTP
// service and event handlers, `formd migrate` applies migrations, and the
// operator's commands change an account: `formd plan set <email> <plan>`,
// `formd grant <email> <feature>` and `formd revoke <email> <feature>`.
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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/watermillpg"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/ports/events"
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

// memoryLimit is the soft memory limit formd sets for the Go runtime: FORMD_MEMORY_LIMIT_MIB,
// unless GOMEMLIMIT is set (the runtime reads it itself) or the setting is 0. With
// GOGC at defaultGCPercent alone, the heap grows to five times what was live before a
// collection, so under overload (many requests in flight) resident memory would climb
// well past what the live heap needs; with the limit the collector runs sooner as the
// heap nears it, at no cost in throughput (see docs/performance.md). It is soft: a
// heap that needs more (large uploads in flight) gets it, at the cost of more collections.
func memoryLimit(goMemLimit string, mib int) (int64, bool) {
	if goMemLimit != "" || mib == 0 {
		return 0, false
	}
	return int64(mib) << 20, true
}

func run(args []string) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	if limit, ok := memoryLimit(os.Getenv("GOMEMLIMIT"), cfg.MemoryLimitMiB); ok {
		debug.SetMemoryLimit(limit)
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
	case "grant", "revoke", "plan":
		return operate(ctx, cfg, log, args)
	default:
		return fmt.Errorf("unknown command %q (serve, migrate, plan, grant, revoke)", cmd)
	}
}

// Operator holds the use cases of the operator's commands.
type Operator struct {
	Grant   *application.GrantFeatureHandler
	Revoke  *application.RevokeFeatureHandler
	SetPlan *application.SetPlanHandler
}

// operate runs `formd plan set`, `formd grant` or `formd revoke` as an
// application command, so each change is an event on the account's stream
// with the operator as its actor, and says what it did.
func operate(ctx context.Context, cfg Config, log *slog.Logger, args []string) error {
	var run func(*Operator) error
	var done string
	switch {
	case args[0] == "plan" && len(args) == 4 && args[1] == "set":
		email, plan := args[2], args[3]
		run = func(o *Operator) error {
			return o.SetPlan.Handle(ctx, application.SetPlan{Email: email, Plan: plan, Operator: operator()})
		}
		done = fmt.Sprintf("%s is on the %s plan", email, strings.ToLower(strings.TrimSpace(plan)))
	case args[0] == "grant" && len(args) == 3:
		email, feature := args[1], args[2]
		run = func(o *Operator) error {
			return o.Grant.Handle(ctx, application.GrantFeature{Email: email, Feature: feature, Operator: operator()})
		}
		done = fmt.Sprintf("%s holds %s", email, strings.TrimSpace(feature))
	case args[0] == "revoke" && len(args) == 3:
		email, feature := args[1], args[2]
		run = func(o *Operator) error {
			return o.Revoke.Handle(ctx, application.RevokeFeature{Email: email, Feature: feature, Operator: operator()})
		}
		done = fmt.Sprintf("%s no longer has a grant of %s", email, strings.TrimSpace(feature))
	default:
		return errors.New("usage: formd plan set <account email> <free|pro|lifetime>, formd grant <account email> <feature>, formd revoke <account email> <feature>")
	}
	o, cleanup, err := buildOperator(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer cleanup()
	if err := run(o); err != nil {
		if errors.Is(err, domain.ErrNotFound) {
			return errors.New("no account has that email")
		}
		return err
	}
	fmt.Println(done)
	return nil
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
	if err := svc.Deliveries.Heartbeat(ctx, time.Now()); err != nil {
		return fmt.Errorf("formd: recording this process's delivery heartbeat: %w", err)
	}
	go svc.Wakers.Listen(ctx, svc.Pool, log)
	routers := &runningRouter{current: svc.Router}
	go routers.run(ctx, svc.NewRouter, log)
	workersDone := make(chan struct{})
	go func() {
		defer close(workersDone)
		svc.Router.RunDeliveryWorkers(ctx, cfg.DeliveryWorkers, log)
	}()
	go keepClaimsAlive(ctx, svc.Deliveries, log)
	go maintain(ctx, svc.Pool, svc.Deliveries, log)
	go pruneMessages(ctx, svc.Pool, cfg.UnreadMessageRetention, log)
	go sweep(ctx, svc.CleanUploads, svc.TestInbox, cfg.UploadSweepInterval, log)
	if cfg.TelegramBotToken != "" {
		go pollTelegram(ctx, svc.ConnectTelegramChats, log)
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
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	svc.Later.Wait(shutdownCtx)
	routers.close()
	select { // the delivery workers finish the attempts they are making
	case <-workersDone:
	case <-shutdownCtx.Done():
	}
	if leaveErr := svc.Deliveries.Leave(context.WithoutCancel(ctx), time.Now()); leaveErr != nil {
		log.Warn("releasing this process's delivery claims", "err", leaveErr)
	}
	return err
}

// keepClaimsAlive beats this process's heartbeat, so other processes keep
// their hands off its claimed deliveries, and releases the claims of
// processes whose heartbeat stopped (they died), so those deliveries are
// sent within seconds rather than after their lease.
func keepClaimsAlive(ctx context.Context, deliveries *postgres.DeliveryStore, log *slog.Logger) {
	t := time.NewTicker(postgres.HeartbeatInterval)
	defer t.Stop()
	for {
		now := time.Now()
		if err := deliveries.Heartbeat(ctx, now); err != nil && ctx.Err() == nil {
			log.Warn("delivery heartbeat", "err", err)
		}
		if n, err := deliveries.ReleaseDeadClaims(ctx, now); err != nil && ctx.Err() == nil {
			log.Warn("releasing claims of stopped processes", "err", err)
		} else if n > 0 {
			log.Info("released deliveries claimed by a process that stopped", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// runningRouter keeps the event router running: when it stops on an error
// (the database went away, say), a new one is built and run after a backoff,
// so formd keeps answering HTTP (GET /healthz says 503) and its consumers
// resume where their offsets are once the database is back, instead of the
// whole process exiting.
type runningRouter struct {
	mu      sync.Mutex
	current *events.Router
	closed  bool
}

// run runs the current router, and its successors, until close.
func (r *runningRouter) run(ctx context.Context, build RouterFactory, log *slog.Logger) {
	backoff := time.Second
	for {
		r.mu.Lock()
		router, closed := r.current, r.closed
		r.mu.Unlock()
		if closed {
			return
		}
		var err error
		if router != nil {
			// The router stops through Close at shutdown, not by cancellation,
			// so in-flight handler transactions finish instead of failing noisily.
			err = router.Run(context.WithoutCancel(ctx))
		}
		r.mu.Lock()
		closed = r.closed
		r.current = nil
		r.mu.Unlock()
		if closed || ctx.Err() != nil {
			return
		}
		log.Error("event router stopped; starting a new one", "err", err, "after", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 30*time.Second)
		next, err := build()
		if err != nil {
			log.Error("event router could not be built", "err", err)
			continue
		}
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			_ = next.Close()
			return
		}
		r.current = next
		r.mu.Unlock()
	}
}

// close stops the running router and any restart.
func (r *runningRouter) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.current != nil {
		_ = r.current.Close()
	}
}

// pruneMessages deletes acknowledged Watermill messages every minute: under
// load a topic gains millions of messages an hour, and an hourly prune made
// one large burst of deletes; each minute's share is a few short chunks.
// Several processes may run it at once: the deletes are idempotent.
func pruneMessages(ctx context.Context, pool *pgxpool.Pool, unread time.Duration, log *slog.Logger) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		for _, topic := range application.Topics {
			if n, err := watermillpg.Prune(ctx, pool, topic, unread); err != nil && ctx.Err() == nil {
				log.Warn("pruning acknowledged messages", "topic", topic, "err", err)
			} else if n > 0 {
				log.Debug("pruned acknowledged messages", "topic", topic, "count", n)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// maintain prunes expired Idempotency-Key records, autoresponder
// reservations, spent proof-of-work challenges and old password reset
// requests, and shreds the payloads
// kept for failed deliveries once their retention ran out, hourly. Several
// processes may run it at once: every delete is idempotent.
func maintain(ctx context.Context, pool *pgxpool.Pool, deliveries *postgres.DeliveryStore, log *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if n, err := deliveries.ShredExpiredPayloads(ctx, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("shredding the payloads of failed deliveries past their retention", "err", err)
		} else if n > 0 {
			log.Info("shredded the payloads of failed deliveries past their retention", "count", n)
		}
		if n, err := postgres.PruneIdempotencyKeys(ctx, pool); err != nil && ctx.Err() == nil {
			log.Warn("pruning idempotency keys", "err", err)
		} else if n > 0 {
			log.Info("pruned idempotency keys", "count", n)
		}
		if _, err := postgres.PruneAutoresponderSends(ctx, pool); err != nil && ctx.Err() == nil {
			log.Warn("pruning autoresponder reservations", "err", err)
		}
		if _, err := postgres.PruneSpentChallenges(ctx, pool, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("pruning spent proof-of-work challenges", "err", err)
		}
		if err := postgres.PruneThrottles(ctx, pool, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("pruning password reset requests and throttle keys", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sweep deletes the objects and reservations of unused upload keys that
// expired and of delivered uploads whose links expired, and the test
// inbox's renderings past their retention. Several processes may sweep at
// once: deleting is idempotent.
func sweep(ctx context.Context, clean *application.CleanUploadsHandler, inbox *application.TestInbox, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := clean.Handle(ctx); err != nil && ctx.Err() == nil {
			log.Warn("deleting expired and delivered uploads", "err", err)
		} else if n > 0 {
			log.Info("deleted expired and delivered uploads", "count", n)
		}
		if n, err := inbox.Sweep(ctx); err != nil && ctx.Err() == nil {
			log.Warn("deleting expired test submissions", "err", err)
		} else if n > 0 {
			log.Info("deleted expired test submissions", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// pollTelegram reads the operator's bot's updates for connect codes. Every
// process runs it; one at a time holds the lease and polls, the others
// look again now and then, so one takes over when the poller stops.
func pollTelegram(ctx context.Context, connect *application.ConnectTelegramChatsHandler, log *slog.Logger) {
	const (
		standBy = 5 * time.Second  // between looks at another process's lease
		calm    = time.Second      // between rounds that came back at once
		backoff = 15 * time.Second // after a failure
	)
	for ctx.Err() == nil {
		started := time.Now()
		res, err := connect.Handle(ctx, application.TelegramPollWait)
		pause := time.Duration(0)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("reading the telegram bot's updates", "err", err)
			pause = backoff
		case !res.Polled:
			pause = standBy
		case res.Updates == 0:
			pause = calm - time.Since(started)
		}
		if res.Connected > 0 {
			log.Info("connected telegram chats", "count", res.Connected)
		}
		if pause > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(pause):
			}
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

func newLogger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// shutdownGrace bounds how long in-flight requests may finish at shutdown.
const shutdownGrace = 15 * time.Second
