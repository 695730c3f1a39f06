// Package prometheus is formd's metrics adapter: it counts what the
// application, the group commit and the HTTP port report, reads the delivery
// queue and consumer-group lag from PostgreSQL at scrape time, and serves it
// all in Prometheus's format (client_golang).
//
// Labels come from small fixed sets (gates, delivery kinds and states,
// routes as registered, status classes), never from ids, addresses, keys or
// raw paths. The hot-path series are resolved when Metrics is built, so
// counting a submission or a commit is a lookup and an atomic add.
package prometheus

import (
	"log/slog"
	"net/http"
	"sync"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// Metrics implements application.Metrics, the postgres adapter's
// CommitObserver and the HTTP port's RequestObserver (all by their method
// sets: this adapter imports no other), and serves /metrics.
type Metrics struct {
	registry *prom.Registry

	// submissions[dryRun][outcome][gate]: every series a submission can hit.
	submissions [2]map[application.SubmissionOutcome]map[string]prom.Counter
	// attempts[kind][state]; kinds outside the domain's count as "other".
	attempts map[string]map[string]prom.Counter

	commitSize    prom.Observer
	commitLatency prom.Observer

	// unavailable[surface]: requests refused while the database was down.
	unavailable map[string]prom.Counter
	// spamChecks[outcome]: the content classifier's answers.
	spamChecks map[application.SpamCheckOutcome]prom.Counter

	requests *prom.HistogramVec
	// routes caches the request-latency series per route, method and
	// status class: routes are the registered ones, so the set is small. A
	// plain map under a read lock, not a sync.Map: boxing the key would
	// allocate on every request.
	mu     sync.RWMutex
	routes map[requestKey]prom.Observer
}

// Gates are the gate label values of refusals; gateNone is an accepted (or
// replayed, or failed) submission's, gateOther a gate this build does not know.
var gates = []string{submission.GateAccessKey, submission.GateRecipientVerified, submission.GateOrigin,
	submission.GateServerSide, submission.GateCaptcha, submission.GateHoneypot, submission.GateSpam, submission.GateRedirect, submission.GatePaidFeatures,
	submission.GateUploads, submission.GateFields, submission.GateQuota, application.FloodGate}

const (
	gateNone  = "none"
	gateOther = "other"
	kindOther = "other"
)

var outcomes = []application.SubmissionOutcome{application.SubmissionAccepted, application.SubmissionRefused,
	application.SubmissionReplayed, application.SubmissionError, application.SubmissionUnavailable}

var kinds = []string{delivery.KindEmail, delivery.KindAutoresponder, delivery.KindWebhook, delivery.KindSlack, delivery.KindDiscord,
	delivery.KindAccountVerification, delivery.KindRecipientVerification, delivery.KindPasswordReset, kindOther}

// states are what delivery.Status names an attempt's outcome.
var states = []string{"succeeded", "retrying", "failed"}

// New builds the metrics with every series the hot paths use, and the
// collector that reads the database's gauges at scrape time from sources.
func New(sources Sources) *Metrics {
	m := &Metrics{registry: prom.NewRegistry(), attempts: map[string]map[string]prom.Counter{},
		routes: map[requestKey]prom.Observer{}}
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	build := prom.NewGauge(prom.GaugeOpts{Name: "formd_build_info", Help: "Always 1; its labels name the running build.",
		ConstLabels: prom.Labels{"version": sources.Build.Version, "commit": sources.Build.Commit, "goversion": sources.Build.GoVersion}})
	build.Set(1)
	m.registry.MustRegister(build)

	submissions := prom.NewCounterVec(prom.CounterOpts{Name: "formd_submissions_total",
		Help: "Live /submit requests by outcome (accepted, refused, replayed, error) and, for a refusal, the gate that refused it."},
		[]string{"outcome", "gate"})
	dryRuns := prom.NewCounterVec(prom.CounterOpts{Name: "formd_submission_dry_runs_total",
		Help: "Dry-run /submit requests by outcome (accepted: every gate passed; refused) and the gate that refused it."},
		[]string{"outcome", "gate"})
	for i, vec := range []*prom.CounterVec{submissions, dryRuns} {
		m.submissions[i] = map[application.SubmissionOutcome]map[string]prom.Counter{}
		for _, o := range outcomes {
			byGate := map[string]prom.Counter{}
			if o == application.SubmissionRefused {
				for _, g := range append(gates, gateOther) {
					byGate[g] = vec.WithLabelValues(string(o), g)
				}
			} else if o != application.SubmissionReplayed || i == 0 { // a dry run never replays
				byGate[gateNone] = vec.WithLabelValues(string(o), gateNone)
			}
			m.submissions[i][o] = byGate
		}
	}

	attempts := prom.NewCounterVec(prom.CounterOpts{Name: "formd_delivery_attempts_total",
		Help: "Recorded delivery attempts by kind and the state each left its delivery in (succeeded, retrying, failed)."},
		[]string{"kind", "state"})
	for _, k := range kinds {
		m.attempts[k] = map[string]prom.Counter{}
		for _, s := range states {
			m.attempts[k][s] = attempts.WithLabelValues(k, s)
		}
	}

	commitSize := prom.NewHistogram(prom.HistogramOpts{Name: "formd_group_commit_size",
		Help:    "Submissions per group commit (one transaction, one WAL flush).",
		Buckets: prom.ExponentialBuckets(1, 2, 9)}) // 1 .. 256, the largest batch
	commitLatency := prom.NewHistogram(prom.HistogramOpts{Name: "formd_group_commit_duration_seconds",
		Help:    "Time to commit one group of submissions, from taking it off the queue to the answer.",
		Buckets: prom.ExponentialBuckets(0.0005, 2, 14)}) // 0.5 ms .. 4 s
	m.commitSize, m.commitLatency = commitSize, commitLatency

	m.requests = prom.NewHistogramVec(prom.HistogramOpts{Name: "formd_http_request_duration_seconds",
		Help:    "HTTP request latency on the main listener by route (as registered; unmatched for none), method and status class.",
		Buckets: prom.ExponentialBuckets(0.0005, 2, 16)}, // 0.5 ms .. 16 s
		[]string{"route", "method", "status"})

	unavailable := prom.NewCounterVec(prom.CounterOpts{Name: "formd_unavailable_refusals_total",
		Help: "Requests answered with the outage error because the database could not be reached, by surface (submit, api, dashboard, mcp)."},
		[]string{"surface"})
	m.unavailable = map[string]prom.Counter{}
	for _, s := range surfaces {
		m.unavailable[s] = unavailable.WithLabelValues(s)
	}

	spamChecks := prom.NewCounterVec(prom.CounterOpts{Name: "formd_spam_checks_total",
		Help: "Submissions the content classifier (rspamd) was asked about, by outcome (ham, spam, unavailable: judged by the form's rules alone)."},
		[]string{"outcome"})
	m.spamChecks = map[application.SpamCheckOutcome]prom.Counter{}
	for _, o := range spamCheckOutcomes {
		m.spamChecks[o] = spamChecks.WithLabelValues(string(o))
	}

	m.registry.MustRegister(submissions, dryRuns, attempts, commitSize, commitLatency, m.requests, unavailable, spamChecks,
		newDatabaseCollector(sources))
	return m
}

// Submitted implements application.Metrics.
func (m *Metrics) Submitted(dryRun bool, outcome application.SubmissionOutcome, gate string) {
	i := 0
	if dryRun {
		i = 1
	}
	byGate, ok := m.submissions[i][outcome]
	if !ok {
		return // an outcome this build does not know: no series for it
	}
	if outcome != application.SubmissionRefused {
		gate = gateNone
	}
	c, ok := byGate[gate]
	if !ok {
		c = byGate[gateOther]
	}
	if c != nil {
		c.Inc()
	}
}

// DeliveryAttempted implements application.Metrics.
func (m *Metrics) DeliveryAttempted(kind, state string) {
	byState, ok := m.attempts[kind]
	if !ok {
		byState = m.attempts[kindOther]
	}
	if c, ok := byState[state]; ok {
		c.Inc()
	}
}

// surfaces are the surface label values of formd_unavailable_refusals_total.
var surfaces = []string{application.SurfaceSubmit, application.SurfaceAPI, application.SurfaceDashboard, application.SurfaceMCP}

// RefusedUnavailable implements application.UnavailableRefusals; a surface
// this build does not know is not counted.
func (m *Metrics) RefusedUnavailable(surface string) {
	if c, ok := m.unavailable[surface]; ok {
		c.Inc()
	}
}

// spamCheckOutcomes are the outcome label values of formd_spam_checks_total.
var spamCheckOutcomes = []application.SpamCheckOutcome{application.SpamCheckHam, application.SpamCheckSpam, application.SpamCheckUnavailable}

// SpamChecked implements application.SpamCheckCounter; an outcome this
// build does not know is not counted.
func (m *Metrics) SpamChecked(outcome application.SpamCheckOutcome) {
	if c, ok := m.spamChecks[outcome]; ok {
		c.Inc()
	}
}

// ObserveCommit implements the postgres adapter's CommitObserver.
func (m *Metrics) ObserveCommit(size int, took time.Duration) {
	m.commitSize.Observe(float64(size))
	m.commitLatency.Observe(took.Seconds())
}

type requestKey struct {
	route, method string
	class         int
}

// statusClasses are the status label values by the status's hundreds.
var statusClasses = [...]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

// knownMethods keeps the method label to a fixed set: a client may send any
// token as a method.
var knownMethods = map[string]string{http.MethodGet: http.MethodGet, http.MethodHead: http.MethodHead,
	http.MethodPost: http.MethodPost, http.MethodPut: http.MethodPut, http.MethodPatch: http.MethodPatch,
	http.MethodDelete: http.MethodDelete, http.MethodOptions: http.MethodOptions}

// ObserveRequest implements the HTTP port's RequestObserver. route is the
// route as registered (never the raw path), empty when none matched.
func (m *Metrics) ObserveRequest(route, method string, status int, took time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	method, ok := knownMethods[method]
	if !ok {
		method = "other"
	}
	class := status / 100
	if class < 1 || class > 5 {
		class = 0
	}
	key := requestKey{route, method, class}
	m.mu.RLock()
	o, ok := m.routes[key]
	m.mu.RUnlock()
	if !ok {
		o = m.requests.WithLabelValues(route, method, statusClasses[class])
		m.mu.Lock()
		m.routes[key] = o
		m.mu.Unlock()
	}
	o.Observe(took.Seconds())
}

// Handler serves the metrics in Prometheus's text format. A gauge the
// database could not answer is left out and logged as a warning on log, while
// the rest is still served: an outage is when the counters matter most.
func (m *Metrics) Handler(log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)})
}
