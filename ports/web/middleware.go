package web

import (
	"net/http"
	"strings"

	"github.com/formd/formd/ports/portkit"
)

// ContentSecurityPolicy allows the dashboard's own files only: no inline
// script or style, no framing, forms posted to formd alone.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"frame-ancestors 'none'; form-action 'self'; base-uri 'none'"

// MailFramingPolicy is ContentSecurityPolicy for a page that shows a
// rendered mail's HTML part in a sandboxed srcdoc frame. That frame
// inherits the page's policy and has an opaque origin, so an inherited
// frame-ancestors would refuse the page itself as its parent: the policy
// leaves it out and the page keeps X-Frame-Options: DENY (which is not
// inherited) against being framed. Mails are styled inline, so inline
// styles are allowed (the page's own markup is html/template's, which
// escapes every value); the mail still runs no script (sandbox) and loads
// nothing from elsewhere.
const MailFramingPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"form-action 'self'; base-uri 'none'"

// allowMailFrames sets MailFramingPolicy on a page that shows mail HTML.
func allowMailFrames(w http.ResponseWriter) {
	w.Header().Set("Content-Security-Policy", MailFramingPolicy)
}

// maxFormBody bounds a dashboard form post.
const maxFormBody = 64 << 10

// requestIDOf is the request's id: a sane incoming X-Request-Id, else a new one.
func requestIDOf(r *http.Request) string { return portkit.RequestIDOf(r.Context()) }

// serve gives every dashboard response its request id and security headers,
// bounds form posts, logs one line, and turns a panic into a 500 page.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w.Header(), !strings.HasPrefix(r.URL.Path, Prefix+"/static/"))
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
	}
	s.access.Serve(w, r, s.serveUnlessUnavailable)
}

// serveUnlessUnavailable answers at once while the database is down, so a
// page does not wait for connection attempts that cannot succeed.
func (s *Server) serveUnlessUnavailable(w http.ResponseWriter, r *http.Request) {
	if needsDatabase(r) && !s.config.Database.Available() {
		s.unavailable(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// accessLog logs a dashboard request by the route its mux matched; the
// metrics count it by the route's path.
func (s *Server) accessLog() portkit.AccessLog {
	a := portkit.AccessLog{Log: s.log,
		Route: func(r *http.Request) (string, string) { return r.Pattern, routeOf(r.Pattern) },
		Failed: func(w http.ResponseWriter, r *http.Request, _ string) {
			s.errorPage(w, r, http.StatusInternalServerError, "")
		}}
	if s.config.Requests != nil {
		a.Observe = s.config.Requests.ObserveRequest
	}
	return a
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
