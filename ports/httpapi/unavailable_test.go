package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
)

// database is an availability the test sets, and the refusals it counted.
type database struct {
	mu       sync.Mutex
	down     bool
	lost     int
	refusals map[string]int
}

func (d *database) Available() bool             { d.mu.Lock(); defer d.mu.Unlock(); return !d.down }
func (d *database) Lost()                       { d.mu.Lock(); d.lost++; d.mu.Unlock() }
func (d *database) RefusedUnavailable(s string) { d.mu.Lock(); d.refusals[s]++; d.mu.Unlock() }

// errLostConnection is a failure only the database adapter recognises.
var errLostConnection = errors.New("connection refused")

func (d *database) Unavailable(err error) error {
	if errors.Is(err, errLostConnection) {
		return fmt.Errorf("%w: %w", application.ErrUnavailable, err)
	}
	return err
}

func downEngine(t *testing.T) (http.Handler, *database) {
	t.Helper()
	db := &database{down: true, refusals: map[string]int{}}
	h := NewServer(&application.Application{}, currentSchema{}, slog.New(slog.DiscardHandler),
		Config{BaseURL: "https://forms.example.test", Database: db, Refusals: db})
	return h, db
}

// expectOutageAnswer checks the spec's ErrorResponse with the retry advice.
func expectOutageAnswer(t *testing.T, rec *httptest.ResponseRecorder, message string) {
	t.Helper()
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", rec.Code)
	}
	if got := rec.Header().Get("Retry-After"); got != "3" {
		t.Errorf("Retry-After %q, want 3", got)
	}
	var body errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %q: %v", rec.Body, err)
	}
	if body.Success || body.Message != message || body.RequestID == "" {
		t.Errorf("body %+v, want success false, message %q and a requestId", body, message)
	}
}

func TestWhileTheDatabaseIsDownASubmissionIsToldToRetryAtOnce(t *testing.T) {
	h, db := downEngine(t)
	req := httptest.NewRequest(http.MethodPost, "/submit/some-key", strings.NewReader(`{"name":"Ada"}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	expectOutageAnswer(t, rec, application.MsgUnavailableSubmit)
	if !strings.Contains(application.MsgUnavailableSubmit, "same key") {
		t.Errorf("a submission's outage answer must advise retrying with the same Idempotency-Key")
	}
	if db.refusals[application.SurfaceSubmit] != 1 {
		t.Errorf("refusals %v, want one for submit", db.refusals)
	}
}

func TestWhileTheDatabaseIsDownAPlainPostGetsTheErrorPageWithATryAgainReason(t *testing.T) {
	h, _ := downEngine(t)
	req := httptest.NewRequest(http.MethodPost, "/submit", strings.NewReader(`name=Ada`))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("status %d, want 303 to the error page", rec.Code)
	}
	to, err := url.Parse(rec.Header().Get("Location"))
	if err != nil || to.Path != ErrorPagePath || to.Query().Get("code") != reasonUnavailable {
		t.Fatalf("Location %q, want the error page with code %s", rec.Header().Get("Location"), reasonUnavailable)
	}
	if !pageReasons[reasonUnavailable] {
		t.Errorf("the error page does not explain %s", reasonUnavailable)
	}
}

func TestWhileTheDatabaseIsDownTheControlPlaneIsToldToRetry(t *testing.T) {
	h, db := downEngine(t)
	req := httptest.NewRequest(http.MethodGet, "/v1/forms", nil)
	req.Header.Set("Authorization", "Bearer whatever")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	expectOutageAnswer(t, rec, application.MsgUnavailable)
	if db.refusals[application.SurfaceAPI] != 1 {
		t.Errorf("refusals %v, want one for api", db.refusals)
	}
}

func TestRoutesThatNeedNoDatabaseServeThroughAnOutage(t *testing.T) {
	h, _ := downEngine(t)
	for _, path := range []string{"/healthz", "/openapi.json", ClientScriptPath} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s = %d during an outage, want 200", path, rec.Code)
		}
	}
}

// A request that meets the outage before the prober does gets the same
// answer, and tells the prober.
func TestAnUnavailableErrorIsAnsweredAsTheOutage(t *testing.T) {
	db := &database{refusals: map[string]int{}}
	s := &Server{log: slog.New(slog.DiscardHandler), config: Config{Database: db, Refusals: db}}
	engine := gin.New()
	engine.Use(s.requestID)
	failing := func(c *gin.Context) {
		s.respondError(c, fmt.Errorf("load form: %w: %w", application.ErrUnavailable, fmt.Errorf("connection refused")))
	}
	engine.GET("/v1/forms", failing)
	engine.POST("/submit", failing)
	engine.GET("/v1/account", func(c *gin.Context) { s.respondError(c, fmt.Errorf("load account: %w", errLostConnection)) })

	rec := httptest.NewRecorder()
	engine.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/forms", nil))
	expectOutageAnswer(t, rec, application.MsgUnavailable)

	req := httptest.NewRequest(http.MethodPost, "/submit", nil)
	req.Header.Set("Accept", "application/json")
	rec = httptest.NewRecorder()
	engine.ServeHTTP(rec, req)
	expectOutageAnswer(t, rec, application.MsgUnavailableSubmit)

	// A failure no adapter wrapped on its way out, which the database's
	// availability recognises.
	rec = httptest.NewRecorder()
	engine.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/account", nil))
	expectOutageAnswer(t, rec, application.MsgUnavailable)
	if db.lost != 3 {
		t.Errorf("the prober heard of %d lost connections, want 3", db.lost)
	}
}
