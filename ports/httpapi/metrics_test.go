package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/formd/formd/application"
)

// seenRequests records what the server reports.
type seenRequests struct{ got []string }

func (s *seenRequests) ObserveRequest(route, method string, status int, took time.Duration) {
	if took <= 0 {
		route += " (no duration)"
	}
	s.got = append(s.got, method+" "+route+" "+http.StatusText(status))
}

func TestRequestsAreObservedByRouteNeverByPath(t *testing.T) {
	seen := &seenRequests{}
	h := NewServer(&application.Application{}, currentSchema{}, slog.New(slog.DiscardHandler),
		Config{BaseURL: "https://forms.example.test", Requests: seen})
	for _, r := range []struct{ method, path string }{
		{http.MethodGet, "/healthz"},
		{http.MethodOptions, "/submit/secret-access-key"},
		{http.MethodGet, "/no/such/route/secret"},
	} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(r.method, r.path, nil))
	}
	want := []string{"GET /healthz OK", "OPTIONS /submit/:accessKey No Content", "GET  Not Found"}
	if !slices.Equal(seen.got, want) {
		t.Fatalf("observed %q, want %q", seen.got, want)
	}
}
