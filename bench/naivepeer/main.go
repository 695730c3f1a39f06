// Command naivepeer is the benchmark's naive peer: the form backend written
// in an afternoon with Go, Gin and PostgreSQL. Each POST /submit is read as
// JSON or a form, needs an access_key, and is stored with one autocommit
// INSERT of its fields as jsonb before it is answered 200. It sends no mail
// and keeps no events, no quota, no idempotency keys and no deliveries.
//
// The bench asks that formd's intake (delivery workers off) beat it at every
// concurrency from 1 to 128: a design that does this much more per
// submission must still not be slower than the one-insert-per-request design
// beside it. The bench builds and starts it (bench/naive.go); it is not part
// of formd.
//
//	naivepeer -listen 127.0.0.1:8090 -database postgres://...
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// maxConns is formd's default pool size (adapters/postgres.DefaultMaxConns),
// copied so the peer links no formd package; a test keeps the two equal.
const maxConns = 24

func main() {
	listen := flag.String("listen", "127.0.0.1:8090", "address to serve on")
	database := flag.String("database", "", "PostgreSQL URL")
	flag.Parse()
	if *database == "" {
		fmt.Fprintln(os.Stderr, "naivepeer: -database is required")
		os.Exit(2)
	}
	if err := serve(*listen, *database); err != nil {
		log.Fatalf("naivepeer: %v", err)
	}
}

// serve runs the peer until SIGTERM or SIGINT.
func serve(listen, databaseURL string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	pool, err := connect(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	srv := &http.Server{Addr: listen, Handler: newRouter(pool), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// connect opens the pool and creates the peer's one table.
func connect(ctx context.Context, databaseURL string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, err
	}
	// formd's pool size, so neither side wins by holding more connections.
	cfg.MaxConns = maxConns
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := pool.Exec(ctx, createTable); err != nil {
		pool.Close()
		return nil, fmt.Errorf("create table: %w", err)
	}
	return pool, nil
}

// createTable is the naive schema: a random uuid key and the fields as jsonb.
const createTable = `CREATE TABLE IF NOT EXISTS naive_submissions (
	id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
	access_key text NOT NULL,
	data       jsonb NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now()
)`
