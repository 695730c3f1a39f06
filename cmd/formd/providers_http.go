package main

import (
	"log/slog"
	"net/http"

	"github.com/formd/formd/adapters/ratelimit"
	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/httpapi"
	"github.com/formd/formd/ports/mcp"
	"github.com/formd/formd/ports/web"
)

// registrationLimits is the one bucket per client network of the
// registrations that tell whether an address has an account, shared by
// POST /agent/auth and the dashboard's registration; nil: no limit.
type registrationLimits struct{ keyed *ratelimit.Keyed }

// provideRegistrationLimits allows FORMD_REGISTER_RATE such registrations
// an hour per client network (IPv6 by /64), in bursts as large.
func provideRegistrationLimits(cfg Config) registrationLimits {
	if cfg.RegisterRate <= 0 {
		return registrationLimits{}
	}
	return registrationLimits{ratelimit.NewKeyed(cfg.RegisterRate/3600, max(int(cfg.RegisterRate), 1))}
}

func provideHTTPConfig(cfg Config, requests httpapi.RequestObserver, registrations registrationLimits,
	database application.DatabaseAvailability, refusals application.UnavailableRefusals, drain *httpapi.Drain,
	messages application.Messages) httpapi.Config {
	c := httpapi.Config{BaseURL: cfg.BaseURL, TrustedProxies: cfg.TrustedProxies, Database: database, Refusals: refusals, Drain: drain,
		Messages: messages, SubmitRatePerIP: cfg.SubmitRate, SubmitBurstPerIP: cfg.SubmitBurst, AuthAttemptsPerMinute: cfg.AuthRate,
		SubmissionsInFlight: cfg.SubmissionsInFlight, APIWritesPerMinute: cfg.APIWriteRate,
		FileBytesInFlight: int64(cfg.UploadMiBInFlight) << 20, FileBytesInFlightPerClient: int64(cfg.UploadMiBInFlightPerClient) << 20,
		MinBodyBytesPerSecond: cfg.MinBodyRate, Version: currentBuild().Version,
		NewLimiter: func(perSec float64, burst int) httpapi.Limiter { return ratelimit.NewKeyed(perSec, burst) }}
	if registrations.keyed != nil { // a nil *Keyed in the interface would not read as "no limit"
		c.Registrations = registrations.keyed
	}
	if cfg.MetricsAddr != "" { // nobody scrapes them otherwise: spare every request the work
		c.Requests = requests
	}
	return c
}

// provideWebConfig limits the dashboard's sign-in and registration attempts
// as FORMD_AUTH_RATE limits POST /agent/auth: per IP, and half as many per
// account (buckets of the dashboard's own, per process). Its requests count
// in the same latency metrics as the API's.
func provideWebConfig(cfg Config, requests httpapi.RequestObserver, registrations registrationLimits,
	database application.DatabaseAvailability, refusals application.UnavailableRefusals, messages application.Messages) web.Config {
	c := web.Config{BaseURL: cfg.BaseURL, TrustedProxies: cfg.TrustedProxies, Database: database, Refusals: refusals, Messages: messages}
	if registrations.keyed != nil {
		c.Registrations = registrations.keyed
	}
	if cfg.MetricsAddr != "" {
		c.Requests = requests
	}
	if perMinute := cfg.AuthRate; perMinute > 0 {
		c.SignInPerIP = ratelimit.NewKeyed(perMinute/60, max(int(perMinute), 1))
		c.SignInPerAccount = ratelimit.NewKeyed(perMinute/120, max(int(perMinute/2), 1))
	}
	return c
}

// provideMCPConfig reports /mcp requests to the metrics when they are
// served, as provideHTTPConfig does for the JSON API; like every port, it
// refuses at once while the database is down.
func provideMCPConfig(cfg Config, requests mcp.RequestObserver, database application.DatabaseAvailability,
	refusals application.UnavailableRefusals) mcp.Config {
	c := mcp.Config{Database: database, Refusals: refusals}
	if cfg.MetricsAddr != "" {
		c.Requests = requests
	}
	return c
}

// provideHTTPHandler serves the MCP server (/mcp) and the dashboard (GET /
// and /dashboard/…) in front of the JSON API, which answers everything else.
func provideHTTPHandler(app *application.Application, schema httpapi.SchemaCheck, log *slog.Logger, cfg httpapi.Config,
	dashboard web.Config, agents mcp.Config) http.Handler {
	return mcp.NewHandler(app, log, agents, web.NewHandler(app, log, dashboard, httpapi.NewServer(app, schema, log, cfg)))
}
