package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestIPLimiterRefusesAfterBurstAndRecovers(t *testing.T) {
	l := newIPLimiter(2, 3)
	now := time.Unix(1000, 0)
	for i := 0; i < 3; i++ {
		if ok, _ := l.allow("192.0.2.1", now); !ok {
			t.Fatalf("request %d within the burst was refused", i+1)
		}
	}
	ok, wait := l.allow("192.0.2.1", now)
	if ok || wait <= 0 || wait > time.Second {
		t.Fatalf("4th request: ok=%v wait=%v, want refused with a wait of at most 1s", ok, wait)
	}
	if ok, _ := l.allow("192.0.2.2", now); !ok {
		t.Fatal("another address must have its own bucket")
	}
	if ok, _ := l.allow("192.0.2.1", now.Add(600*time.Millisecond)); !ok {
		t.Fatal("a token must be back after 1/rate seconds")
	}
}

// One IPv6 subscriber holds a /64: rotating addresses inside it must not
// give it fresh buckets.
func TestSubmissionLimitKeysIPv6ByPrefix(t *testing.T) {
	engine := testEngine(t) // one submission per address, burst 1
	post := func(remote string) int {
		req := httptest.NewRequest(http.MethodPost, "/submit", strings.NewReader(`{`))
		req.Header.Set("Content-Type", "application/json")
		req.RemoteAddr = remote
		rec := httptest.NewRecorder()
		engine.ServeHTTP(rec, req)
		return rec.Code
	}
	if code := post("[2001:db8:1:2::1]:5000"); code == http.StatusTooManyRequests {
		t.Fatalf("first post refused")
	}
	if code := post("[2001:db8:1:2:ffff:ffff:ffff:fffe]:5000"); code != http.StatusTooManyRequests {
		t.Errorf("another address of the same /64 = %d, want 429", code)
	}
	if code := post("[2001:db8:1:3::1]:5000"); code == http.StatusTooManyRequests {
		t.Errorf("another /64 must have its own bucket")
	}
	if code := post("192.0.2.9:5000"); code == http.StatusTooManyRequests {
		t.Errorf("an IPv4 address has its own bucket")
	}
	if code := post("192.0.2.10:5000"); code == http.StatusTooManyRequests {
		t.Errorf("IPv4 neighbours are not grouped")
	}
}

func TestClientKey(t *testing.T) {
	for ip, want := range map[string]string{
		"192.0.2.1":         "192.0.2.1",
		"::ffff:192.0.2.1":  "192.0.2.1",
		"2001:db8::1":       "2001:db8::/64",
		"2001:db8:0:0:1::9": "2001:db8::/64",
		"not an ip":         "not an ip",
	} {
		if got := clientKey(ip); got != want {
			t.Errorf("clientKey(%q) = %q, want %q", ip, got, want)
		}
	}
}
