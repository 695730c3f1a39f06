package main

import (
	"log/slog"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/prometheus"
	"github.com/formd/formd/adapters/system"
	"github.com/formd/formd/adapters/watermillpg"
	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/events"
	"github.com/formd/formd/ports/httpapi"
)

// Service is everything `formd serve` runs.
type Service struct {
	Config Config
	Log    *slog.Logger
	Pool   *pgxpool.Pool
	Wakers *watermillpg.Wakers
	Router *events.Router
	// NewRouter builds another event router when the running one stops on a
	// database failure (serve restarts it).
	NewRouter RouterFactory
	Handler   http.Handler
	// Drain turns GET /readyz to "draining" when shutdown begins.
	Drain *httpapi.Drain
	// Submissions is the group-commit store; it is closed after the HTTP
	// server drains so every accepted request gets its commit.
	Submissions *postgres.SubmissionStore
	// Deliveries releases this process's claims when it leaves.
	Deliveries *postgres.DeliveryStore
	// Metrics is served on FORMD_METRICS_ADDR when it is set.
	Metrics *prometheus.Metrics
	// Sweeps are run by the periodic jobs (jobs.go).
	Sweeps *application.Sweeps
	// ConnectTelegramChats polls the operator's bot for connect codes
	// when FORMD_TELEGRAM_BOT_TOKEN is set.
	ConnectTelegramChats *application.ConnectTelegramChatsHandler
	// Later runs the work requests leave for after their answer (a password
	// reset's mail); shutdown waits for it.
	Later *system.Background
}
