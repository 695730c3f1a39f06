package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/formd/formd/application"
)

// schemaAt is a schema check the test sets, counting its queries.
type schemaAt struct {
	current bool
	err     error
	asked   int
}

func (s *schemaAt) Current(context.Context) (bool, error) { s.asked++; return s.current, s.err }

func probe(t *testing.T, h http.Handler, path string) (int, map[string]string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	var body map[string]string
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("GET %s: %v in %q", path, err, rec.Body.String())
	}
	return rec.Code, body
}

func TestReadinessSaysWhyAProcessShouldGetNoRequests(t *testing.T) {
	for _, tt := range []struct {
		name       string
		draining   bool
		down       bool
		schema     schemaAt
		wantStatus int
		wantBody   string
	}{
		{name: "ready", schema: schemaAt{current: true}, wantStatus: 200, wantBody: "ready"},
		{name: "draining", draining: true, schema: schemaAt{current: true}, wantStatus: 503, wantBody: "draining"},
		{name: "draining while the database is down", draining: true, down: true, wantStatus: 503, wantBody: "draining"},
		{name: "database down", down: true, schema: schemaAt{current: true}, wantStatus: 503, wantBody: "database unavailable"},
		{name: "schema unreadable", schema: schemaAt{err: errors.New("conn closed")}, wantStatus: 503, wantBody: "database unavailable"},
		{name: "migrations pending", schema: schemaAt{}, wantStatus: 503, wantBody: "migrations pending"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := &database{down: tt.down, refusals: map[string]int{}}
			drain := NewDrain()
			if tt.draining {
				drain.Start()
			}
			h := NewServer(&application.Application{}, &tt.schema, slog.New(slog.DiscardHandler),
				Config{Version: "v9.9.9", Database: db, Refusals: db, Drain: drain})
			code, body := probe(t, h, "/readyz")
			if code != tt.wantStatus || body["status"] != tt.wantBody {
				t.Errorf("GET /readyz = %d %v, want %d %q", code, body, tt.wantStatus, tt.wantBody)
			}
			if code == 200 && body["version"] != "v9.9.9" {
				t.Errorf("GET /readyz version %q, want the build's", body["version"])
			}
			if code != 200 && body["requestId"] == "" {
				t.Errorf("GET /readyz %v has no requestId", body)
			}
			// Liveness is not readiness: the process serves HTTP whatever the database or the drain.
			if code, body := probe(t, h, "/healthz"); code != 200 || body["status"] != "ok" || body["version"] != "v9.9.9" {
				t.Errorf("GET /healthz = %d %v, want 200 ok v9.9.9", code, body)
			}
		})
	}
}

func TestReadinessAsksTheSchemaOnlyWhileTheDatabaseIsUp(t *testing.T) {
	db := &database{down: true, refusals: map[string]int{}}
	schema := &schemaAt{current: true}
	h := NewServer(&application.Application{}, schema, slog.New(slog.DiscardHandler), Config{Database: db, Refusals: db})
	probe(t, h, "/readyz")
	if schema.asked != 0 {
		t.Errorf("the schema was asked %d times while the database was down", schema.asked)
	}
	schema.err = errors.New("conn closed")
	db.down = false
	probe(t, h, "/readyz")
	if db.lost != 1 {
		t.Errorf("a failed schema check told the prober %d times, want 1", db.lost)
	}
}
