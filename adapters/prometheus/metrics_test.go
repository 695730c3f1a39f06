package prometheus_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	dto "github.com/prometheus/client_model/go"

	"github.com/formd/formd/adapters/prometheus"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// scrape serves m's handler once and parses what it answers.
func scrape(t *testing.T, m *prometheus.Metrics) (map[string]*dto.MetricFamily, int) {
	families, code, _ := scrapeLogged(t, m)
	return families, code
}

// scrapeLogged is scrape, with what the handler logged.
func scrapeLogged(t *testing.T, m *prometheus.Metrics) (map[string]*dto.MetricFamily, int, string) {
	t.Helper()
	var logged bytes.Buffer
	rec := httptest.NewRecorder()
	m.Handler(slog.New(slog.NewTextHandler(&logged, nil))).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("parsing the scrape: %v\n%s", err, body)
	}
	return families, rec.Code, logged.String()
}

// value is the value of the series of family with exactly these labels; -1
// when there is none.
func value(families map[string]*dto.MetricFamily, family string, labels ...string) float64 {
	f := families[family]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.Metric {
		if len(m.Label) != len(labels)/2 {
			continue
		}
		for i := 0; i < len(labels); i += 2 {
			found := false
			for _, l := range m.Label {
				found = found || (l.GetName() == labels[i] && l.GetValue() == labels[i+1])
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}

func TestWhatTheApplicationReportsIsCountedUnderFixedLabels(t *testing.T) {
	m := prometheus.New(prometheus.Sources{})
	m.Submitted(false, application.SubmissionAccepted, "")
	m.Submitted(false, application.SubmissionRefused, submission.GateOrigin)
	m.Submitted(false, application.SubmissionRefused, "a gate of a later build")
	m.Submitted(true, application.SubmissionRefused, submission.GateHoneypot)
	m.Submitted(false, application.SubmissionRefused, submission.GateCaptcha)
	m.DeliveryAttempted(delivery.KindEmail, "succeeded")
	m.DeliveryAttempted("carrier pigeon", "failed")
	m.Submitted(false, application.SubmissionUnavailable, "")
	m.RefusedUnavailable(application.SurfaceSubmit)
	m.RefusedUnavailable(application.SurfaceMCP)
	m.RefusedUnavailable("carrier pigeon")
	m.SpamChecked(application.SpamCheckUnavailable)
	m.SpamChecked(application.SpamCheckSpam)
	m.SpamChecked(application.SpamCheckSpam)
	m.ObserveCommit(3, 2*time.Millisecond)
	m.ObserveRequest("/submit/:accessKey", http.MethodPost, 200, time.Millisecond)
	m.ObserveRequest("", "BREW", 418, time.Millisecond)

	got, code := scrape(t, m)
	if code != http.StatusOK {
		t.Fatalf("scrape answered %d", code)
	}
	for _, c := range []struct {
		family string
		labels []string
		want   float64
	}{
		{"formd_submissions_total", []string{"outcome", "accepted", "gate", "none"}, 1},
		{"formd_spam_checks_total", []string{"outcome", "unavailable"}, 1},
		{"formd_spam_checks_total", []string{"outcome", "spam"}, 2},
		{"formd_spam_checks_total", []string{"outcome", "ham"}, 0},
		{"formd_submissions_total", []string{"outcome", "refused", "gate", "origin"}, 1},
		{"formd_submissions_total", []string{"outcome", "refused", "gate", "other"}, 1},
		{"formd_submissions_total", []string{"outcome", "refused", "gate", "honeypot"}, 0}, // the dry run is counted apart
		{"formd_submission_dry_runs_total", []string{"outcome", "refused", "gate", "honeypot"}, 1},
		{"formd_submissions_total", []string{"outcome", "refused", "gate", "captcha"}, 1},
		{"formd_submissions_total", []string{"outcome", "unavailable", "gate", "none"}, 1},
		{"formd_unavailable_refusals_total", []string{"surface", "submit"}, 1},
		{"formd_unavailable_refusals_total", []string{"surface", "mcp"}, 1},
		{"formd_unavailable_refusals_total", []string{"surface", "api"}, 0},
		{"formd_delivery_attempts_total", []string{"kind", "email", "state", "succeeded"}, 1},
		{"formd_delivery_attempts_total", []string{"kind", "other", "state", "failed"}, 1},
		{"formd_group_commit_size", nil, 1},
		{"formd_group_commit_duration_seconds", nil, 1},
		{"formd_http_request_duration_seconds", []string{"route", "/submit/:accessKey", "method", "POST", "status", "2xx"}, 1},
		{"formd_http_request_duration_seconds", []string{"route", "unmatched", "method", "other", "status", "4xx"}, 1},
	} {
		if v := value(got, c.family, c.labels...); v != c.want {
			t.Errorf("%s%v = %v, want %v", c.family, c.labels, v, c.want)
		}
	}
	if s := got["formd_group_commit_size"].Metric[0].Histogram.GetSampleSum(); s != 3 {
		t.Errorf("commit size sum %v, want 3", s)
	}
}

func TestCountingAllocatesNothing(t *testing.T) {
	m := prometheus.New(prometheus.Sources{})
	m.ObserveRequest("/submit", http.MethodPost, 200, time.Millisecond) // the route's series is made once
	allocs := testing.AllocsPerRun(1000, func() {
		m.Submitted(false, application.SubmissionAccepted, "")
		m.Submitted(false, application.SubmissionRefused, submission.GateFields)
		m.DeliveryAttempted(delivery.KindWebhook, "retrying")
		m.ObserveCommit(17, time.Millisecond)
		m.ObserveRequest("/submit", http.MethodPost, 200, time.Millisecond)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per round, want none on the hot path", allocs)
	}
}

func TestTheDatabaseGaugesAreReadAtScrapeTime(t *testing.T) {
	queue := prometheus.QueueStats{Queued: 4, Retrying: 2, OldestDue: 1500 * time.Millisecond}
	m := prometheus.New(prometheus.Sources{
		Queue: func(context.Context) (prometheus.QueueStats, error) { return queue, nil },
		Lag: func(context.Context) ([]prometheus.GroupLag, error) {
			return []prometheus.GroupLag{{Topic: "delivery", Group: "delivery-queue", Messages: 7}}, nil
		},
	})
	got, _ := scrape(t, m)
	for _, c := range []struct {
		family string
		labels []string
		want   float64
	}{
		{"formd_delivery_queue_depth", []string{"state", "queued"}, 4},
		{"formd_delivery_queue_depth", []string{"state", "retrying"}, 2},
		{"formd_delivery_oldest_due_age_seconds", nil, 1.5},
		{"formd_consumer_group_lag_messages", []string{"topic", "delivery", "group", "delivery-queue"}, 7},
	} {
		if v := value(got, c.family, c.labels...); v != c.want {
			t.Errorf("%s%v = %v, want %v", c.family, c.labels, v, c.want)
		}
	}
	queue.Queued = 9 // the next scrape reads again
	if got, _ = scrape(t, m); value(got, "formd_delivery_queue_depth", "state", "queued") != 9 {
		t.Errorf("the queue depth was not read again at the second scrape")
	}
}

func TestADatabaseThatDoesNotAnswerLeavesTheOtherMetrics(t *testing.T) {
	m := prometheus.New(prometheus.Sources{
		Queue: func(context.Context) (prometheus.QueueStats, error) {
			return prometheus.QueueStats{}, errors.New("down")
		},
		Lag: func(context.Context) ([]prometheus.GroupLag, error) { return nil, errors.New("down") },
	})
	m.Submitted(false, application.SubmissionAccepted, "")
	got, _, logged := scrapeLogged(t, m)
	if !strings.Contains(logged, "down") {
		t.Errorf("the database's failure was not logged: %q", logged)
	}
	if _, ok := got["formd_delivery_queue_depth"]; ok {
		t.Errorf("a queue depth was reported without a database")
	}
	if value(got, "formd_submissions_total", "outcome", "accepted", "gate", "none") != 1 {
		t.Errorf("the counters must still be served: %v", got["formd_submissions_total"])
	}
}

// intakeLoad is a fixed intake load.
type intakeLoad struct{ inProgress, gaveWay int64 }

func (l *intakeLoad) InProgress() int64 { return l.inProgress }
func (l *intakeLoad) GaveWay() int64    { return l.gaveWay }

func TestTheIntakeLoadIsReadAtScrapeTime(t *testing.T) {
	m := prometheus.New(prometheus.Sources{})
	load := &intakeLoad{inProgress: 3, gaveWay: 1}
	m.WatchIntake(load)
	got, _ := scrape(t, m)
	if v := value(got, "formd_submissions_in_progress"); v != 3 {
		t.Errorf("formd_submissions_in_progress = %v, want 3", v)
	}
	if v := value(got, "formd_delivery_give_ways_total"); v != 1 {
		t.Errorf("formd_delivery_give_ways_total = %v, want 1", v)
	}
	load.inProgress = 2
	if got, _ = scrape(t, m); value(got, "formd_submissions_in_progress") != 2 {
		t.Errorf("the submissions in progress were not read again at the second scrape")
	}
}

func TestTheBuildIsNamedByTheBuildInfoGauge(t *testing.T) {
	m := prometheus.New(prometheus.Sources{Build: prometheus.Build{Version: "v0.1.0", Commit: "feedbeef", GoVersion: "go1.26.8"}})
	got, _ := scrape(t, m)
	if v := value(got, "formd_build_info", "version", "v0.1.0", "commit", "feedbeef", "goversion", "go1.26.8"); v != 1 {
		t.Errorf("formd_build_info{version=v0.1.0,commit=feedbeef,goversion=go1.26.8} = %v, want 1", v)
	}
}
