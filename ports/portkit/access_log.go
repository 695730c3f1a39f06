package portkit

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// AccessLog is how a port serves each request: the request gets its id (on
// the answer and in its context), the status it is answered with is kept,
// a panic becomes the port's own answer, and one log line is written and
// the observer told. Never headers, the query or a body: they carry
// credentials, tokens and form data.
type AccessLog struct {
	Log *slog.Logger
	// Route names a served request's route, as logged and as observed.
	Route func(r *http.Request) (logged, observed string)
	// Observe, when set, hears the route, method, status and duration of
	// every request, for the latency metrics.
	Observe func(route, method string, status int, took time.Duration)
	// Failed answers a request whose handler panicked before answering.
	Failed func(w http.ResponseWriter, r *http.Request, requestID string)
}

type requestIDKey struct{}

// RequestIDOf is the id AccessLog.Serve gave the request ctx belongs to.
func RequestIDOf(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// Serve hands the request to next, as the type's comment says.
func (a AccessLog) Serve(w http.ResponseWriter, r *http.Request, next func(http.ResponseWriter, *http.Request)) {
	start := time.Now()
	id := RequestID(r.Header.Get(RequestIDHeader))
	w.Header().Set(RequestIDHeader, id)
	r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id))
	sw := &StatusWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			a.Log.Error("panic while serving request", "requestId", id, "panic", p)
			if sw.Status == 0 {
				a.Failed(sw, r, id)
			}
		}
		took := time.Since(start)
		logged, observed := a.Route(r)
		a.Log.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("requestId", id),
			slog.String("method", r.Method), slog.String("route", logged), slog.Int("status", sw.Status),
			slog.Duration("duration", took))
		if a.Observe != nil {
			a.Observe(observed, r.Method, sw.Status, took)
		}
	}()
	next(sw, r)
}
