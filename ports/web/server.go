// Package web is formd's dashboard: a driving port beside the JSON API that
// serves server-rendered HTML (html/template) over the same application
// commands and queries. Templates and assets are embedded; there is no
// JavaScript build step, and the pages work without script (dashboard.js
// only adds copy buttons).
//
// A page is one handler file and one template: routes.go lists them all,
// render.go draws them inside the layout, and the middleware (middleware.go,
// csrf.go) gives every response its security headers and every POST its
// CSRF check.
package web

import (
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/portkit"
)

// Prefix is where the dashboard lives; its assets are under Prefix+"/static/".
const Prefix = "/dashboard"

// SessionCookie is the spec's session cookie, the one the JSON API accepts.
const SessionCookie = "auth.session_token"

// Limiter is a per-process token bucket per key (an IP, an email).
type Limiter interface {
	// Allow takes a token of key's bucket at now, or says how long to wait.
	Allow(key string, now time.Time) (ok bool, retryAfter time.Duration)
}

// RegistrationLimiter is a token bucket per key whose token can be given
// back when the attempt it paid for turns out not to count.
type RegistrationLimiter interface {
	Take(key string, now time.Time) (ok bool, wait time.Duration, giveBack func())
}

// Config is what the dashboard needs to know about its deployment.
type Config struct {
	// BaseURL is formd's public address (FORMD_BASE_URL): the snippets use
	// it, and an https one makes the session cookie Secure.
	BaseURL string
	// TrustedProxies may set the client IP through X-Forwarded-For.
	TrustedProxies []string
	// Messages match a request's Accept-Language to a catalog language,
	// the language of the verification mails it causes; nil: English.
	Messages application.Messages
	// SignInPerIP and SignInPerAccount limit sign-in and registration
	// attempts (each checks a password); nil means no limit.
	SignInPerIP      Limiter
	SignInPerAccount Limiter
	// Registrations bounds, per client network, the registrations that
	// tell whether an address has an account (a new account, or "already
	// exists"); the JSON API's POST /agent/auth shares it. Nil: no limit.
	Registrations RegistrationLimiter
	// Database says whether the database is up: while it is down, pages
	// answer at once that the service is briefly unavailable. Nil: always
	// tried.
	Database application.DatabaseAvailability
	// Refusals counts the pages refused while the database was down; nil
	// counts nothing.
	Refusals application.UnavailableRefusals
	// Requests hears of every dashboard request, for the same latency
	// metrics as the JSON API's; nil reports nothing.
	Requests RequestObserver
}

// RequestObserver hears about each dashboard request: route is the route as
// registered (/dashboard/forms/{formId}), never the raw path.
type RequestObserver interface {
	ObserveRequest(route, method string, status int, took time.Duration)
}

// Server serves the dashboard and hands every other request to the next handler.
type Server struct {
	app     *application.Application
	log     *slog.Logger
	config  Config
	secure  bool
	proxies trustedProxies
	pages   *pages
	mux     *http.ServeMux
	next    http.Handler
	slots   portkit.PasswordCheckSlots
	access  portkit.AccessLog
}

// NewHandler builds the dashboard in front of next (the JSON API): it
// answers GET / and everything under /dashboard, and passes the rest on.
func NewHandler(app *application.Application, log *slog.Logger, config Config, next http.Handler) http.Handler {
	if config.Database == nil {
		config.Database = application.AlwaysAvailable{}
	}
	if config.Refusals == nil {
		config.Refusals = application.NopRefusals{}
	}
	base, _ := url.Parse(config.BaseURL)
	s := &Server{
		app: app, log: log, config: config, next: next,
		secure:  base != nil && base.Scheme == "https",
		proxies: parseTrustedProxies(config.TrustedProxies, log),
		pages:   mustParsePages(),
		mux:     http.NewServeMux(),
		slots:   portkit.NewPasswordCheckSlots(runtime.GOMAXPROCS(0)),
	}
	s.access = s.accessLog()
	s.routes()
	return s
}

// ServeHTTP routes the dashboard's paths to its own mux and others to next.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if p == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead) ||
		p == Prefix || strings.HasPrefix(p, Prefix+"/") {
		s.serve(w, r)
		return
	}
	s.next.ServeHTTP(w, r)
}

// requestLanguage is the catalog language (docs/languages.md) of r's
// Accept-Language, the language of the verification mails r causes;
// blank (English) without catalogs.
func (s *Server) requestLanguage(r *http.Request) string {
	if s.config.Messages == nil {
		return ""
	}
	return s.config.Messages.Language(r.Header.Get("Accept-Language"))
}
