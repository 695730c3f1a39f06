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
	// Submissions is the group-commit store; it is closed after the HTTP
	// server drains so every accepted request gets its commit.
	Submissions *postgres.SubmissionStore
	// Deliveries beats this process's heartbeat and releases the claims of
	// processes that died.
	Deliveries *postgres.DeliveryStore
	// Metrics is served on FORMD_METRICS_ADDR when it is set.
	Metrics *prometheus.Metrics
	// CleanUploads deletes unused and delivered uploads, every
	// FORMD_UPLOAD_SWEEP_INTERVAL.
	CleanUploads *application.CleanUploadsHandler
	// TestInbox's sweep shreds test renderings past their retention, in
	// the same loop.
	TestInbox *application.TestInbox
	// ConnectTelegramChats polls the operator's bot for connect codes
	// when FORMD_TELEGRAM_BOT_TOKEN is set.
	ConnectTelegramChats *application.ConnectTelegramChatsHandler
	// Later runs the work requests leave for after their answer (a password
	// reset's mail); shutdown waits for it.
	Later *system.Background
}
