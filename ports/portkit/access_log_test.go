package portkit

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A request keeps a sane id of its caller, is logged and observed with the
// status it got, and a panic becomes the port's answer, logged as a 500.
func TestAccessLogServesLogsAndRecovers(t *testing.T) {
	var logged bytes.Buffer
	var observed []string
	a := AccessLog{
		Log:   slog.New(slog.NewTextHandler(&logged, nil)),
		Route: func(*http.Request) (string, string) { return "GET /x/{id}", "/x/{id}" },
		Observe: func(route, method string, status int, _ time.Duration) {
			observed = append(observed, route+" "+method+" "+http.StatusText(status))
		},
		Failed: func(w http.ResponseWriter, _ *http.Request, id string) {
			http.Error(w, "failed "+id, http.StatusInternalServerError)
		},
	}
	req := httptest.NewRequest(http.MethodGet, "/x/1?token=secret", nil)
	req.Header.Set(RequestIDHeader, "caller-id-123")
	rec := httptest.NewRecorder()
	a.Serve(rec, req, func(w http.ResponseWriter, r *http.Request) {
		if RequestIDOf(r.Context()) != "caller-id-123" {
			t.Errorf("the handler sees id %q", RequestIDOf(r.Context()))
		}
		w.WriteHeader(http.StatusTeapot)
	})
	if rec.Header().Get(RequestIDHeader) != "caller-id-123" || rec.Code != http.StatusTeapot {
		t.Errorf("answer %d with id %q", rec.Code, rec.Header().Get(RequestIDHeader))
	}
	rec = httptest.NewRecorder()
	a.Serve(rec, httptest.NewRequest(http.MethodGet, "/x/2", nil), func(http.ResponseWriter, *http.Request) { panic("boom") })
	id := rec.Header().Get(RequestIDHeader)
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "failed "+id) || !IsSaneRequestID(id) {
		t.Errorf("after a panic: %d %q (id %q)", rec.Code, rec.Body, id)
	}
	if got := strings.Join(observed, "; "); got != "/x/{id} GET I'm a teapot; /x/{id} GET Internal Server Error" {
		t.Errorf("observed %q", got)
	}
	log := logged.String()
	if strings.Contains(log, "secret") || !strings.Contains(log, `route="GET /x/{id}"`) || !strings.Contains(log, "status=418") ||
		!strings.Contains(log, "panic while serving request") || !strings.Contains(log, "status=500") {
		t.Errorf("log:\n%s", log)
	}
}
