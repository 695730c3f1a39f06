package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/formd/formd/ports/httpapi"
)

// How formd drains its HTTP connections at shutdown, without the classic
// keep-alive race: a client that sends a request on an idle connection just
// as the server closes it gets a reset or an EOF, and a client does not
// retry a POST that carries no Idempotency-Key, so a submission would be
// lost to it. net/http's Server.Shutdown closes idle connections at once,
// and so does SetKeepAlivesEnabled(false); neither is used until the
// clients have had their chance. Instead:
//
//   - the listener closes at once: a new connection is refused (a client
//     or load balancer tries another process), and a refusal is never a
//     request half sent. Keeping it open for a while would have clients
//     reconnect to it (every answer now closes its connection) right up to
//     the moment it closes, when the connections the kernel accepted but
//     formd had not are reset; closed at once, it meets only the rare client
//     opening a new connection at the signal;
//   - every answer from then on carries Connection: close, so a busy
//     connection ends after its answer, and the client knows not to reuse it;
//   - an idle connection is left to its client: its next request is answered
//     (with Connection: close), or the client closes it. While requests are
//     in flight or keep arriving, formd waits for that, up to drainIdleWait
//     (an answer begun before the drain may lack Connection: close, and its
//     client's next request follows it at once); once no request has been
//     in flight for drainQuiet, the connections still idle belong to clients
//     that are not sending, and Shutdown closes them (as the idle timeout
//     would any other time), then waits for what is still in flight, whose
//     answers it closes.

// drainQuiet is how long no request may be in flight before idle
// connections are closed: longer than the pause between a busy client's
// requests.
const drainQuiet = 500 * time.Millisecond

// drainIdleWait is the longest formd waits for idle connections' clients
// during a drain of timeout: a quarter of it, so in-flight requests keep
// the rest.
func drainIdleWait(timeout time.Duration) time.Duration { return timeout / 4 }

// connections counts the HTTP server's open connections (Server.ConnState).
type connections struct {
	mu   sync.Mutex
	open map[net.Conn]struct{}
}

func newConnections() *connections { return &connections{open: map[net.Conn]struct{}{}} }

func (c *connections) track(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch state {
	case http.StateNew:
		c.open[conn] = struct{}{}
	case http.StateHijacked, http.StateClosed:
		delete(c.open, conn)
	}
}

func (c *connections) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.open)
}

// closingWhileDraining answers with Connection: close once the drain has
// begun, and keeps count of the requests in flight and of when one last
// began or ended (drainQuiet).
type closingWhileDraining struct {
	drain        *httpapi.Drain
	next         http.Handler
	inFlight     atomic.Int64
	lastActivity atomic.Int64 // Unix nanoseconds
}

func (h *closingWhileDraining) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.inFlight.Add(1)
	h.lastActivity.Store(time.Now().UnixNano())
	defer func() {
		h.lastActivity.Store(time.Now().UnixNano())
		h.inFlight.Add(-1)
	}()
	if h.drain.Draining() {
		w.Header().Set("Connection", "close")
	}
	h.next.ServeHTTP(w, r)
}

// quietSince reports whether no request has been in flight since t (or
// since the last one ended, if later) for drainQuiet.
func (h *closingWhileDraining) quietSince(t, now time.Time) bool {
	if h.inFlight.Load() > 0 {
		return false
	}
	if last := time.Unix(0, h.lastActivity.Load()); last.After(t) {
		t = last
	}
	return now.Sub(t) >= drainQuiet
}

// onceListener may be closed twice (by the drain, then by Shutdown) with
// the second close reporting nothing.
type onceListener struct {
	net.Listener
	once sync.Once
	err  error
}

func (l *onceListener) Close() error {
	l.once.Do(func() { l.err = l.Listener.Close() })
	return l.err
}

// httpDrain is what the drain of the HTTP server saw.
type httpDrain struct {
	open     int // connections open when it began
	cut      int // connections closed with a request still unanswered at the deadline
	timedOut bool
}

// drainHTTP stops srv as the comment at the top of this file says, within
// ctx: the listener first, then the idle connections' clients get their
// chance, then Shutdown waits for the requests in flight. What is still
// open at ctx's end is closed.
func drainHTTP(ctx context.Context, srv *http.Server, ln net.Listener, conns *connections,
	handler *closingWhileDraining, idleWait time.Duration) httpDrain {
	began := time.Now()
	d := httpDrain{open: conns.count()}
	_ = ln.Close()
	idleUntil := began.Add(idleWait)
	waiting := func() bool {
		if conns.count() == 0 || ctx.Err() != nil {
			return false
		}
		now := time.Now()
		return now.Before(idleUntil) && !handler.quietSince(began, now)
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for waiting() {
		<-tick.C
	}
	if err := srv.Shutdown(ctx); errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		d.timedOut, d.cut = true, conns.count()
		_ = srv.Close()
	}
	return d
}
