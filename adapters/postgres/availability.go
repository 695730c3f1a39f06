package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
)

// unavailable wraps err in application.ErrUnavailable when it says the
// database could not be reached, so the ports answer "retry shortly"
// instead of reporting a bug; any other error is returned as it is.
func unavailable(err error) error {
	if err == nil || errors.Is(err, application.ErrUnavailable) || !isConnectionFailure(err) {
		return err
	}
	return fmt.Errorf("%w: %w", application.ErrUnavailable, err)
}

// isConnectionFailure reports errors of the connection rather than of the
// statement: the server refused or dropped it, is shutting down or starting,
// or the socket broke.
func isConnectionFailure(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// 08: connection exception; 57P01-03: admin or crash shutdown,
		// cannot connect now (crash recovery).
		return strings.HasPrefix(pgErr.Code, "08") ||
			pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	var connect *pgconn.ConnectError
	var opErr *net.OpError
	return errors.As(err, &connect) ||
		pgconn.SafeToRetry(err) ||
		pgconn.Timeout(err) ||
		errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, net.ErrClosed) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &opErr)
}

// Probe intervals of Availability: often while the database is down, so
// requests are served again soon after it returns; rarely while it is up.
const (
	probeWhileDown = 250 * time.Millisecond
	probeWhileUp   = time.Second
	probeTimeout   = time.Second
)

// probeConn is the connection Availability probes on.
type probeConn interface {
	Ping(ctx context.Context) error
	Close(ctx context.Context) error
}

// Availability implements application.DatabaseAvailability by probing the
// database on a connection of its own: a pool busy with requests must not
// read as an outage, and an outage must not wait for the pool.
type Availability struct {
	dial func(ctx context.Context) (probeConn, error)
	conn probeConn
	down atomic.Bool
	wake chan struct{}
}

// NewAvailability probes the database of pool's configuration; it reads as
// available until a probe fails. Run starts the probing.
func NewAvailability(pool *pgxpool.Pool) *Availability {
	cfg := pool.Config().ConnConfig
	return newAvailability(func(ctx context.Context) (probeConn, error) {
		return pgx.ConnectConfig(ctx, cfg.Copy())
	})
}

func newAvailability(dial func(ctx context.Context) (probeConn, error)) *Availability {
	return &Availability{dial: dial, wake: make(chan struct{}, 1)}
}

// Available implements application.DatabaseAvailability.
func (a *Availability) Available() bool { return !a.down.Load() }

// Lost implements application.DatabaseAvailability: it asks for a probe
// now, without waiting for it.
func (a *Availability) Lost() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// Unavailable implements application.DatabaseAvailability with the
// adapter's one rule for connection failures.
func (a *Availability) Unavailable(err error) error { return unavailable(err) }

// Run probes until ctx ends.
func (a *Availability) Run(ctx context.Context) {
	defer a.closeConn()
	for {
		a.probe(ctx)
		wait := probeWhileUp
		if a.down.Load() {
			wait = probeWhileDown
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-a.wake:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// probe marks the database down when it does not answer twice in a row: a
// connection the server closed while idle costs one reconnection, not an
// outage.
func (a *Availability) probe(ctx context.Context) {
	for range 2 {
		if ctx.Err() != nil {
			return
		}
		if a.ping(ctx) == nil {
			a.down.Store(false)
			return
		}
	}
	a.down.Store(true)
}

func (a *Availability) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if a.conn == nil {
		conn, err := a.dial(ctx)
		if err != nil {
			return err
		}
		a.conn = conn
	}
	err := a.conn.Ping(ctx)
	if err != nil {
		a.closeConn()
	}
	return err
}

// closeConn drops the probe's connection; a server that does not answer
// cannot hold it up for longer than a probe.
func (a *Availability) closeConn() {
	if a.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	_ = a.conn.Close(ctx)
	a.conn = nil
}
