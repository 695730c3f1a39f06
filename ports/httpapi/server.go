// Package httpapi is formd's HTTP port (gin): public submission, the /v1
// control plane, agent registration, verification links and discovery.
// Handlers decode requests into commands, call the application, and map errors
// to the spec's ErrorResponse in one place (errors.go).
package httpapi

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/portkit"
)

// Config is what the HTTP port needs to know about its deployment.
type Config struct {
	BaseURL string
	// Messages are the hosted pages' words in the visitor's language
	// (docs/languages.md); nil shows message ids (tests that read no page).
	Messages application.Messages
	// Version is the build's version, shown by GET /healthz and GET /readyz.
	Version string
	// Drain turns GET /readyz to 503 "draining" when the process begins
	// to shut down; nil: never.
	Drain *Drain
	// TrustedProxies may set the client IP through X-Forwarded-For; none by default.
	TrustedProxies []string
	// SubmitRatePerIP is the sustained submissions per second one IP may make
	// (per process); SubmitBurstPerIP the burst. Zero disables the limit.
	SubmitRatePerIP  float64
	SubmitBurstPerIP int
	// AuthAttemptsPerMinute bounds POST /agent/auth per IP (per process); an
	// account gets half as many. Zero disables both limits.
	AuthAttemptsPerMinute float64
	// Registrations bounds, per client network, the POST /agent/auth
	// answers that tell whether an address has an account (a new account,
	// or "already exists"); shared with the dashboard's registration. Nil
	// means no limit.
	Registrations RegistrationLimiter
	// APIWritesPerMinute bounds the /v1 writes of one account (per
	// process), in bursts as large. Zero disables the limit.
	APIWritesPerMinute float64
	// SubmissionsInFlight bounds the submissions one process works on at
	// once; past it /submit answers 429. Zero disables the bound.
	SubmissionsInFlight int
	// FileBytesInFlight bounds the file bytes multipart posts hold while
	// they arrive in this process, FileBytesInFlightPerClient those of one
	// client (an IPv4 address or an IPv6 /64); past either, 429. Zero
	// takes the defaults.
	FileBytesInFlight          int64
	FileBytesInFlightPerClient int64
	// MinBodyBytesPerSecond cuts off a /submit or upload body that brings
	// fewer bytes a second than this over any 10 s; zero turns it off.
	MinBodyBytesPerSecond int64
	// TempDir holds the files of posts being received ("" for the
	// system's temporary directory).
	TempDir string
	// Requests, when set, hears the route, status and duration of every request.
	Requests RequestObserver
	// Database says whether the database is up: while it is down, requests
	// that need it are refused at once. Nil: always tried.
	Database application.DatabaseAvailability
	// Refusals counts the requests refused while the database was down;
	// nil counts nothing.
	Refusals application.UnavailableRefusals
	// NewLimiter makes the buckets of the per-IP and per-account limits
	// above; it must be set when any of them is on.
	NewLimiter NewLimiter
}

// RegistrationLimiter is a token bucket per key whose token can be given
// back when the attempt it paid for turns out not to count.
type RegistrationLimiter interface {
	Take(key string, now time.Time) (ok bool, wait time.Duration, giveBack func())
}

// Server holds the HTTP handlers and the application they call.
type Server struct {
	app    *application.Application
	schema SchemaCheck
	log    *slog.Logger
	config Config
	files  *fileBudget
}

// Defaults of the file budget (Config.FileBytesInFlight…).
const (
	DefaultFileBytesInFlight          = 256 << 20
	DefaultFileBytesInFlightPerClient = 64 << 20
)

// NewServer builds the gin engine with every route.
func NewServer(app *application.Application, schema SchemaCheck, log *slog.Logger, config Config) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	if config.FileBytesInFlight <= 0 {
		config.FileBytesInFlight = DefaultFileBytesInFlight
	}
	if config.FileBytesInFlightPerClient <= 0 {
		config.FileBytesInFlightPerClient = DefaultFileBytesInFlightPerClient
	}
	if config.Database == nil {
		config.Database = application.AlwaysAvailable{}
	}
	if config.Refusals == nil {
		config.Refusals = application.NopRefusals{}
	}
	s := &Server{app: app, schema: schema, log: log, config: config,
		files: newFileBudget(config.FileBytesInFlight, config.FileBytesInFlightPerClient)}
	r := gin.New()
	r.HandleMethodNotAllowed = true
	if err := r.SetTrustedProxies(config.TrustedProxies); err != nil {
		log.Error("invalid trusted proxies; trusting none", "err", err)
		_ = r.SetTrustedProxies(nil)
	}
	if config.Requests != nil {
		r.Use(observeRequests(config.Requests))
	}
	r.Use(s.requestID, s.accessLog, s.recover)
	r.NoRoute(func(c *gin.Context) { s.fail(c, http.StatusNotFound, "No such route.") })
	r.NoMethod(func(c *gin.Context) { s.fail(c, http.StatusMethodNotAllowed, "Method not allowed on this route.") })

	r.GET("/healthz", s.healthz)
	r.GET("/readyz", s.readyz)
	// CORS first: a preflight is answered before the rate limit spends a token.
	submit := r.Group("/submit", publicCORS(http.MethodPost))
	submit.OPTIONS("", preflightAnswered)
	submit.OPTIONS("/:accessKey", preflightAnswered)
	// First: an outage's refusal must not wait for anything.
	submit.Use(s.needsDatabase)
	if config.SubmissionsInFlight > 0 { // before any other work: a refusal must stay cheap when formd is overloaded
		submit.Use(s.boundSubmissions(config.SubmissionsInFlight))
	}
	if config.SubmitRatePerIP > 0 {
		submit.Use(s.rateLimitSubmissions(s.limiter(config.SubmitRatePerIP, max(config.SubmitBurstPerIP, 1))))
	}
	submit.Use(minBodyRate(config.MinBodyBytesPerSecond, bodyRateWindow))
	submit.POST("", s.submit)
	submit.POST("/:accessKey", s.submit)
	upload := r.Group(UploadPath, publicCORS(http.MethodGet))
	upload.OPTIONS("", preflightAnswered)
	if config.SubmitRatePerIP > 0 { // a reservation is a step of a submission: the same limit, its own bucket
		upload.Use(s.rateLimitSubmissions(s.limiter(config.SubmitRatePerIP, max(config.SubmitBurstPerIP, 1))))
	}
	upload.GET("", s.needsDatabase, s.reserveUpload)
	objects := r.Group("", publicCORS(http.MethodPut, http.MethodGet))
	objects.OPTIONS(ObjectsPath, preflightAnswered)
	puts := []gin.HandlerFunc{minBodyRate(config.MinBodyBytesPerSecond, bodyRateWindow)}
	if config.SubmitRatePerIP > 0 { // an upload is a step of a submission: the same limit, its own bucket
		puts = append([]gin.HandlerFunc{s.rateLimitSubmissions(s.limiter(config.SubmitRatePerIP, max(config.SubmitBurstPerIP, 1)))}, puts...)
	}
	objects.PUT(ObjectsPath, append(puts, s.receiveObject)...)
	objects.GET(ObjectsPath, s.downloadObject)
	r.GET(ClientScriptPath, s.clientScript)
	challenge := r.Group(ChallengePath, publicCORS(http.MethodGet))
	challenge.OPTIONS("", preflightAnswered)
	challenge.GET("", s.challenge)
	r.GET(ErrorPagePath, s.errorPage)
	r.GET(SuccessPagePath, s.successPage)
	r.POST("/agent/auth", append([]gin.HandlerFunc{s.needsDatabase, limitBody(64 << 10)}, s.guardPasswordChecks(config)...)...)
	r.POST("/agent/auth/password-reset", append([]gin.HandlerFunc{s.needsDatabase}, s.guardPasswordResets(config)...)...)
	r.GET("/verify/:token", s.showLink)
	r.POST("/verify/:token", limitBody(16<<10), s.confirmLink)
	r.GET("/spam/:token", s.showSpamLink)
	r.POST("/spam/:token", limitBody(16<<10), s.markSpam)
	s.discoveryRoutes(r)
	r.GET("/openapi.json", s.openAPI)

	v1 := r.Group("/v1", s.needsDatabase, limitBody(256<<10), s.authenticate, s.refuseCrossSiteCookieWrites, s.idParamsAreIDs)
	if perMinute := config.APIWritesPerMinute; perMinute > 0 {
		v1.Use(s.limitAccountWrites(s.limiter(perMinute/60, max(int(perMinute), 1))))
	}
	v1.GET("/account", s.getAccount)
	v1.GET("/account/events", s.accountEvents)
	v1.GET("/forms", s.listForms)
	v1.POST("/forms", s.createForm)
	v1.PATCH("/forms/:formId", s.updateForm)
	v1.GET("/forms/:formId/events", s.formEvents)
	v1.GET("/forms/:formId/versions/:version", s.getFormVersion)
	v1.GET("/forms/:formId/versions/:version/diff/:to", s.diffFormVersions)
	v1.GET("/forms/:formId/audit/export", s.exportAudit)
	v1.POST("/forms/:formId/restore", s.restoreFormVersion)
	v1.GET("/forms/:formId/recipient-verification", s.getRecipientVerification)
	v1.POST("/forms/:formId/recipient-verifications", s.resendRecipientVerification)
	v1.GET("/forms/:formId/integrations", s.listIntegrations)
	v1.PATCH("/forms/:formId/integrations/:type", s.configureIntegration)
	v1.POST("/forms/:formId/integrations/webhook/rotate-secret", s.rotateWebhookSecret)
	v1.POST("/forms/:formId/integrations/:type/test", s.testIntegration)
	v1.GET("/forms/:formId/deliveries", s.listDeliveries)
	v1.GET("/deliveries/:deliveryId", s.getDelivery)
	v1.POST("/deliveries/:deliveryId/retry", s.retryDelivery)
	v1.GET("/forms/:formId/test-inbox", s.readTestInbox)
	v1.DELETE("/forms/:formId/test-inbox", s.clearTestInbox)
	v1.GET("/forms/:formId/submissions", s.listSubmissions)
	v1.GET("/forms/:formId/submissions/export", s.exportSubmissions)
	v1.GET("/forms/:formId/submissions/:submissionId", s.getSubmission)
	v1.GET("/forms/:formId/submissions/:submissionId/attachments/:index", s.getSubmissionAttachment)
	v1.POST("/forms/:formId/submissions/erase", s.eraseSubmitter)
	v1.DELETE("/forms/:formId/submissions/:submissionId", s.eraseSubmission)
	v1.GET("/forms/:formId/spam", s.listHeld)
	v1.GET("/forms/:formId/spam/:submissionId", s.getHeld)
	for _, r := range spamReviews {
		v1.Handle(r.method, "/forms/:formId/spam/:submissionId"+r.path, s.reviewHeld(r.verdict))
	}
	s.workspaceRoutes(v1)
	return r
}

const requestIDKey = "requestId"

// requestID gives every request an id: a sane incoming X-Request-Id is kept so
// a proxy's id follows the request, otherwise a random one is made.
func (s *Server) requestID(c *gin.Context) {
	id := portkit.RequestID(c.GetHeader(portkit.RequestIDHeader))
	c.Set(requestIDKey, id)
	c.Header(portkit.RequestIDHeader, id)
	c.Next()
}

func requestIDOf(c *gin.Context) string { return c.GetString(requestIDKey) }

// accessLog logs one structured line per request. It never logs headers,
// bodies or query strings, which may carry credentials or tokens.
func (s *Server) accessLog(c *gin.Context) {
	start := time.Now()
	c.Next()
	route := c.FullPath()
	if route == "" {
		route = "unmatched"
	}
	s.log.LogAttrs(c.Request.Context(), slog.LevelInfo, "request",
		slog.String("requestId", requestIDOf(c)), slog.String("method", c.Request.Method),
		slog.String("route", route), slog.Int("status", c.Writer.Status()),
		slog.Duration("duration", time.Since(start)))
}

// recover turns a panic into a non-leaky 500. http.ErrAbortHandler goes
// on to net/http, which breaks the connection: a handler that fails after
// its response began (an export) shows the client a broken transfer rather
// than a response that looks whole.
func (s *Server) recover(c *gin.Context) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("panic while serving request", "requestId", requestIDOf(c), "panic", p)
			if !c.Writer.Written() {
				s.internalError(c)
			}
			c.Abort()
		}
	}()
	c.Next()
}

// limitBody caps a request body; reading past it fails and the handler answers 413.
func limitBody(n int64) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.ContentLength > n {
			abortJSON(c, http.StatusRequestEntityTooLarge, errorBody{Message: "Request body is too large.", RequestID: requestIDOf(c)})
			return
		}
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, n)
		c.Next()
	}
}
