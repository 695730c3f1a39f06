package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/formd/formd/application"
)

// burstOnly is a Limiter for the port's tests, which count bursts and never
// wait for a refill: each key gets burst tokens, then a refusal for 1/perSec.
// The token bucket itself is adapters/ratelimit's, tested there.
func burstOnly(perSec float64, burst int) Limiter {
	return &burstBuckets{burst: burst, wait: time.Duration(float64(time.Second) / perSec), spent: map[string]int{}}
}

type burstBuckets struct {
	mu    sync.Mutex
	burst int
	wait  time.Duration
	spent map[string]int
}

func (b *burstBuckets) Allow(key string, _ time.Time) (bool, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent[key] >= b.burst {
		return false, b.wait
	}
	b.spent[key]++
	return true, 0
}

// A limit that is on with nothing to count it would be off in silence.
func TestALimitWithoutLimitersRefusesToStart(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewServer started with a submission rate and no NewLimiter")
		}
	}()
	NewServer(&application.Application{}, currentSchema{}, slog.New(slog.DiscardHandler), Config{SubmitRatePerIP: 1})
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
