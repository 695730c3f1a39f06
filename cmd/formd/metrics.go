package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/prometheus"
	"github.com/formd/formd/adapters/watermillpg"
	"github.com/formd/formd/application"
)

// serveMetrics serves Prometheus metrics at /metrics on a listener of its
// own, apart from the public API, so exposing one never exposes the other.
// It listens before returning: an address that cannot be used stops formd
// at start. The returned function stops the server.
func serveMetrics(addr string, metrics http.Handler, log *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("FORMD_METRICS_ADDR: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second}
	log.Info("metrics listening", "addr", ln.Addr().String())
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("metrics server stopped", "err", err)
		}
	}()
	return func() { _ = srv.Close() }, nil
}

// provideMetricSources gives the metrics adapter the database readers of its
// gauges: the delivery queue (postgres) and consumer-group lag (watermillpg).
func provideMetricSources(pool *pgxpool.Pool, deliveries *postgres.DeliveryStore) prometheus.Sources {
	b := currentBuild()
	return prometheus.Sources{
		Build: prometheus.Build{Version: b.Version, Commit: b.Commit, GoVersion: b.GoVersion},
		Queue: func(ctx context.Context) (prometheus.QueueStats, error) {
			s, err := deliveries.QueueStats(ctx)
			return prometheus.QueueStats{Queued: s.Queued, Retrying: s.Retrying, OldestDue: s.OldestDue}, err
		},
		Lag: func(ctx context.Context) ([]prometheus.GroupLag, error) {
			var out []prometheus.GroupLag
			for _, topic := range application.Topics {
				lags, err := watermillpg.Lag(ctx, pool, topic)
				if err != nil {
					return nil, err
				}
				for _, l := range lags {
					out = append(out, prometheus.GroupLag{Topic: l.Topic, Group: l.Group, Messages: l.Messages})
				}
			}
			return out, nil
		},
	}
}
