// Command formd is the form backend: `formd` (or `formd serve`) runs the HTTP
// service and event handlers, `formd migrate` applies migrations, and the
// operator's commands change an account: `formd plan set <email> <plan>`,
// `formd grant <email> <feature>` and `formd revoke <email> <feature>`;
// `formd rekey` re-seals under the current key what an old key sealed.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "formd:", err)
		var exit exitError
		if errors.As(err, &exit) {
			os.Exit(exit.code)
		}
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
	if len(args) > 0 && args[0] == "version" { // needs no configuration
		fmt.Println(currentBuild())
		return nil
	}
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
	case "rekey":
		return rekey(ctx, cfg, log, args, os.Stdout)
	case "audit":
		return audit(ctx, cfg, log, args, os.Stdout)
	default:
		return fmt.Errorf("unknown command %q (serve, migrate, plan, grant, revoke, rekey, audit, version)", cmd)
	}
}

func withPool(ctx context.Context, cfg Config, fn func(*pgxpool.Pool) error) error {
	pool, err := postgres.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	return fn(pool)
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}
