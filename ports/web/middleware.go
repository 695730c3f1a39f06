package web

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/formd/formd/ports/portkit"
)

// ContentSecurityPolicy allows the dashboard's own files only: no inline
// script or style, no framing, forms posted to formd alone.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"frame-ancestors 'none'; form-action 'self'; base-uri 'none'"

// maxFormBody bounds a dashboard form post.
const maxFormBody = 64 << 10

type requestIDKey struct{}

// requestIDOf is the request's id: a sane incoming X-Request-Id, else a new one.
func requestIDOf(r *http.Request) string {
	id, _ := r.Context().Value(requestIDKey{}).(string)
	return id
}

// serve gives every dashboard response its request id and security headers,
// bounds form posts, logs one line, and turns a panic into a 500 page.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := portkit.RequestID(r.Header.Get(portkit.RequestIDHeader))
	r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id))
	h := w.Header()
	h.Set(portkit.RequestIDHeader, id)
	setSecurityHeaders(h, !strings.HasPrefix(r.URL.Path, Prefix+"/static/"))
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
	}
	sw := &portkit.StatusWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic while serving request", "requestId", id, "panic", p)
			if sw.Status == 0 {
				s.errorPage(sw, r, http.StatusInternalServerError, "")
			}
		}
		took := time.Since(start)
		// Never the query or a body: they may carry tokens.
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("requestId", id),
			slog.String("method", r.Method), slog.String("route", r.Pattern), slog.Int("status", sw.Status),
			slog.Duration("duration", took))
		if s.config.Requests != nil {
			s.config.Requests.ObserveRequest(routeOf(r.Pattern), r.Method, sw.Status, took)
		}
	}()
	s.mux.ServeHTTP(sw, r)
}

// setSecurityHeaders sets the headers of every dashboard response; pages
// (everything but the static assets) are never stored by a cache.
func setSecurityHeaders(h http.Header, page bool) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	if page {
		h.Set("Cache-Control", "no-store")
	} else {
		h.Set("Cache-Control", "public, max-age=3600")
	}
}

// routeOf is a mux pattern's path ("GET /dashboard/forms/{formId}" gives
// "/dashboard/forms/{formId}"); empty when no route matched.
func routeOf(pattern string) string {
	if _, path, ok := strings.Cut(pattern, " "); ok {
		return path
	}
	return pattern
}
