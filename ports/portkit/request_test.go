package portkit

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestRequestIDKeepsASaneIncomingID(t *testing.T) {
	if got := RequestID("client-id_1.2"); got != "client-id_1.2" {
		t.Errorf("sane id replaced by %q", got)
	}
	for _, bad := range []string{"", "short", "has space in it", "new\nline-injected", strings.Repeat("a", 65)} {
		got := RequestID(bad)
		if got == bad || !strings.HasPrefix(got, "req_") || len(got) != 28 || !IsSaneRequestID(got) {
			t.Errorf("RequestID(%q) = %q, want a new req_ id", bad, got)
		}
	}
}

func TestStatusWriterRemembersTheFirstStatus(t *testing.T) {
	rec := httptest.NewRecorder()
	w := &StatusWriter{ResponseWriter: rec}
	_, _ = w.Write([]byte("body"))
	w.WriteHeader(http.StatusTeapot)
	if w.Status != http.StatusOK {
		t.Errorf("a write without a status is a 200, got %d", w.Status)
	}
	w = &StatusWriter{ResponseWriter: httptest.NewRecorder()}
	w.WriteHeader(http.StatusNotFound)
	w.WriteHeader(http.StatusInternalServerError)
	if w.Status != http.StatusNotFound {
		t.Errorf("status %d, want the first, 404", w.Status)
	}
}

func TestRetryAfterIsWholeSecondsAtLeastOne(t *testing.T) {
	for wait, want := range map[time.Duration]string{0: "1", 10 * time.Millisecond: "1", time.Second: "1",
		1500 * time.Millisecond: "2", time.Minute: "60"} {
		h := http.Header{}
		SetRetryAfter(h, wait)
		if got := h.Get("Retry-After"); got != want {
			t.Errorf("wait %v: Retry-After %q, want %q", wait, got, want)
		}
	}
}
