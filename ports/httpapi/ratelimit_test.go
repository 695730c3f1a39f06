package httpapi

import (
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
