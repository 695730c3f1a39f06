package web

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/formd/formd/application"
)

// database is an availability the test sets, and the refusals it counted.
type database struct {
	down     bool
	lost     int
	refusals int
}

func (d *database) Available() bool           { return !d.down }
func (d *database) Lost()                     { d.lost++ }
func (d *database) RefusedUnavailable(string) { d.refusals++ }

// errLostConnection is a failure only the database adapter recognises.
var errLostConnection = errors.New("connection refused")

func (d *database) Unavailable(err error) error {
	if errors.Is(err, errLostConnection) {
		return fmt.Errorf("%w: %w", application.ErrUnavailable, err)
	}
	return err
}

func dashboardOn(db *database) *Server {
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(299) })
	return NewHandler(&application.Application{}, slog.New(slog.NewTextHandler(io.Discard, nil)),
		Config{Database: db, Refusals: db}, next).(*Server)
}

func expectUnavailablePage(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", rec.Code)
	}
	if got := rec.Header().Get("Retry-After"); got != "3" {
		t.Errorf("Retry-After %q, want 3", got)
	}
	if !strings.Contains(rec.Body.String(), application.MsgUnavailable) {
		t.Errorf("the page does not say the service is briefly unavailable: %s", rec.Body)
	}
}

func TestWhileTheDatabaseIsDownTheDashboardSaysToTryAgain(t *testing.T) {
	db := &database{down: true}
	s := dashboardOn(db)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, Prefix+"/forms", nil))
	expectUnavailablePage(t, rec)
	if db.refusals != 1 {
		t.Errorf("refusals = %d, want 1", db.refusals)
	}

	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, Prefix+"/static/dashboard.css", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("a static asset = %d during an outage, want 200", rec.Code)
	}
}

// A request that meets the outage before the prober does gets the same
// page, and tells the prober.
func TestAnUnavailableErrorIsTheOutagePage(t *testing.T) {
	db := &database{}
	s := dashboardOn(db)
	rec := httptest.NewRecorder()
	s.failed(rec, httptest.NewRequest(http.MethodGet, Prefix+"/forms", nil),
		fmt.Errorf("list forms: %w: %w", application.ErrUnavailable, fmt.Errorf("connection refused")))
	expectUnavailablePage(t, rec)

	// A failure no adapter wrapped on its way out, which the database's
	// availability recognises.
	rec = httptest.NewRecorder()
	s.failed(rec, httptest.NewRequest(http.MethodGet, Prefix+"/forms", nil), fmt.Errorf("list forms: %w", errLostConnection))
	expectUnavailablePage(t, rec)
	if db.lost != 2 {
		t.Errorf("the prober heard of %d lost connections, want 2", db.lost)
	}
}
