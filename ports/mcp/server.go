// Package mcp is formd's MCP server: a third driving port, beside the JSON
// API and the dashboard, that lets an agent set a form up and check it
// through tools (Model Context Protocol, Streamable HTTP transport, with the
// official Go SDK). Each tool is a thin call of one application use case,
// with typed input and output whose JSON names are the API's.
//
// The server is stateless: it keeps no MCP session between requests (no
// Mcp-Session-Id), so any formd process behind a load balancer answers any
// request, as it does for /v1. What a stateless server cannot do — call the
// client back, or push notifications outside a request — no tool needs.
//
// Every request to /mcp carries the same bearer credential as /v1 (a session
// or a workspace token); scopes are enforced by the use cases, and their
// refusals come back as tool errors with the API's message.
package mcp

import (
	"context"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/portkit"
)

// Path is where the MCP endpoint answers.
const Path = "/mcp"

// RequestObserver hears about every request to /mcp, for latency metrics;
// route is always Path.
type RequestObserver interface {
	ObserveRequest(route, method string, status int, took time.Duration)
}

// Config is what the MCP server needs to know about its deployment.
type Config struct {
	// Requests, when set, is told of every request to /mcp.
	Requests RequestObserver
	// Database says whether the database is up: while it is down, /mcp
	// answers at once that the service is briefly unavailable. Nil: always
	// tried.
	Database application.DatabaseAvailability
	// Refusals counts the requests and tool calls refused while the
	// database was down; nil counts nothing.
	Refusals application.UnavailableRefusals
}

// instructions tell an agent how formd's tools fit together and where a
// person has to step in; clients show them to the model at connection.
const instructions = `formd is a form backend: a website posts a form to formd, which validates it and delivers it by email (and to webhooks, chat and sheets).
Set up a form with create_form (it returns the public access key once: keep it), adjust it with update_form, connect a webhook with configure_integration and check it with test_integration.
Two steps need a person and no tool can do them: the account's email verification (before create_form works) and the form recipient's verification, which the recipient completes by following the link in the email formd sends them (get_recipient_verification shows the status, resend_recipient_verification sends a new link).
dry_run_submission shows, gate by gate, whether a submission would be accepted, without storing or sending anything; list_deliveries shows what was sent and retry_delivery retries a failed delivery.
On a form whose archive is on, list_submissions and get_submission read the submissions it keeps; every call is recorded in the form's access log.
On a form in spam hold mode, list_spam and get_spam read its Spam folder (submissions judged spam, kept out of its deliveries) and review_spam releases one (not_spam) or shreds it (spam, delete).`

// Server answers /mcp and hands every other request to the next handler.
type Server struct {
	app      *application.Application
	log      *slog.Logger
	config   Config
	next     http.Handler
	protocol http.Handler
	access   portkit.AccessLog
}

// NewHandler builds the MCP server in front of next: it answers Path and
// passes every other request on.
func NewHandler(app *application.Application, log *slog.Logger, config Config, next http.Handler) http.Handler {
	if config.Database == nil {
		config.Database = application.AlwaysAvailable{}
	}
	if config.Refusals == nil {
		config.Refusals = application.NopRefusals{}
	}
	s := &Server{app: app, log: log, config: config, next: next}
	s.access = portkit.AccessLog{Log: log,
		Route: func(*http.Request) (string, string) { return Path, Path },
		Failed: func(w http.ResponseWriter, _ *http.Request, requestID string) {
			writeError(w, http.StatusInternalServerError, application.MsgInternal, requestID)
		}}
	if config.Requests != nil {
		s.access.Observe = config.Requests.ObserveRequest
	}
	tools := s.newTools()
	s.protocol = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return tools }, &sdk.StreamableHTTPOptions{
		Stateless: true,
		// Plain JSON answers: every tool answers at once, and a proxy
		// handles them like any API response.
		JSONResponse: true,
		Logger:       log,
		// The SDK refuses a non-loopback Host on a loopback listener to stop
		// DNS rebinding; formd listens on loopback behind a reverse proxy
		// that sends the public host. Rebinding gains nothing here: every
		// request needs a bearer credential, which a browser never adds.
		DisableLocalhostProtection: true,
	})
	return s
}

// newTools builds the MCP server and registers every tool.
func (s *Server) newTools() *sdk.Server {
	version := "(devel)"
	if info, ok := debug.ReadBuildInfo(); ok {
		version = info.Main.Version
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "formd", Title: "formd form backend", Version: version},
		&sdk.ServerOptions{Instructions: instructions, Logger: s.log})
	s.formTools(srv)
	s.formVersionTools(srv)
	s.verificationTools(srv)
	s.dryRunTool(srv)
	s.deliveryTools(srv)
	s.submissionTools(srv)
	s.spamTools(srv)
	s.integrationTools(srv)
	s.testInboxTools(srv)
	return srv
}

// ServeHTTP routes Path to the MCP server and every other path to next.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != Path {
		s.next.ServeHTTP(w, r)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	s.access.Serve(w, r, func(w http.ResponseWriter, r *http.Request) {
		if !s.config.Database.Available() {
			s.unavailable(w, requestIDOf(r.Context()))
			return
		}
		session, ok := s.authenticate(w, r, requestIDOf(r.Context()))
		if !ok {
			return
		}
		s.protocol.ServeHTTP(w, withRemoteIP(r.WithContext(context.WithValue(r.Context(), callerKey{}, session))))
	})
}

// requestIDOf is the id of the HTTP request a tool call came in.
func requestIDOf(ctx context.Context) string { return portkit.RequestIDOf(ctx) }
