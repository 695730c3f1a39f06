package httpapi

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
)

// SchemaCheck reports whether the database's schema is at this binary's
// version (GET /readyz).
type SchemaCheck interface {
	// Current reports whether every migration the binary embeds is applied.
	Current(ctx context.Context) (bool, error)
}

// Drain is the process's shutdown as the HTTP port sees it: from Start on,
// GET /readyz answers 503 "draining", so a load balancer sends new
// requests elsewhere while the requests in flight finish.
type Drain struct{ started atomic.Bool }

// NewDrain is a process that is not shutting down.
func NewDrain() *Drain { return new(Drain) }

// Start marks the process as shutting down; it cannot be undone.
func (d *Drain) Start() { d.started.Store(true) }

// Draining reports whether Start was called (never, for a nil Drain).
func (d *Drain) Draining() bool { return d != nil && d.started.Load() }

// Readiness answers of GET /readyz.
const (
	statusReady               = "ready"
	statusDraining            = "draining"
	statusDatabaseUnavailable = "database unavailable"
	statusMigrationsPending   = "migrations pending"
)

// schemaCheckTimeout bounds a readiness probe's schema query: a probe that
// waits longer than the load balancer's timeout is no answer.
const schemaCheckTimeout = 2 * time.Second

// healthz is liveness: the process serves HTTP. It does not ask the
// database, so an orchestrator does not restart formd while PostgreSQL is
// away; formd rides out an outage and serves again when it returns.
func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok", "version": s.config.Version})
}

// readyz is readiness: whether this process should get new requests. It is
// polled every few seconds by load balancers, so it costs no query while
// the database is up and the schema has been seen current: the database's
// availability is the prober's (Config.Database), and the schema check is
// sticky once it passed.
func (s *Server) readyz(c *gin.Context) {
	if status := s.notReady(c.Request.Context()); status != "" {
		c.JSON(http.StatusServiceUnavailable, gin.H{"status": status, "requestId": requestIDOf(c)})
		return
	}
	c.JSON(http.StatusOK, gin.H{"status": statusReady, "version": s.config.Version})
}

// notReady is why this process should get no new requests, or "".
func (s *Server) notReady(ctx context.Context) string {
	if s.config.Drain.Draining() {
		return statusDraining
	}
	if !s.config.Database.Available() {
		return statusDatabaseUnavailable
	}
	ctx, cancel := context.WithTimeout(ctx, schemaCheckTimeout)
	defer cancel()
	current, err := s.schema.Current(ctx)
	switch {
	case err != nil:
		s.config.Database.Lost()
		return statusDatabaseUnavailable
	case !current:
		return statusMigrationsPending
	}
	return ""
}
