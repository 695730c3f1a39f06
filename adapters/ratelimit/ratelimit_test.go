package ratelimit_test

import (
	"testing"
	"time"

	"github.com/formd/formd/adapters/ratelimit"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func TestEachKeyHasItsOwnBucket(t *testing.T) {
	l := ratelimit.NewKeyed(2, 3) // 2 a second, bursts of 3
	for i := range 3 {
		if ok, _ := l.Allow("noisy", t0); !ok {
			t.Fatalf("post %d of the burst refused", i+1)
		}
	}
	ok, wait := l.Allow("noisy", t0)
	if ok || wait <= 0 || wait > 500*time.Millisecond {
		t.Fatalf("4th post at once: %v, wait %v; want a refusal for up to half a second", ok, wait)
	}
	if ok, _ := l.Allow("quiet", t0); !ok {
		t.Fatal("another key was refused: one noisy key starves it")
	}
	if ok, _ := l.Allow("noisy", t0.Add(wait)); !ok {
		t.Fatalf("refused again after the wait it was told (%v)", wait)
	}
	if ok, _ := l.Allow("noisy", t0.Add(wait)); ok {
		t.Fatal("a refused post spent no token, but the refill after it was taken twice")
	}
}

func TestAZeroRateAllowsEverything(t *testing.T) {
	l := ratelimit.NewKeyed(0, 0)
	for range 1000 {
		if ok, _ := l.Allow("form", t0); !ok {
			t.Fatal("a disabled limit refused")
		}
	}
}

func TestIdleBucketsAreForgottenFull(t *testing.T) {
	l := ratelimit.NewKeyed(1, 1)
	if ok, _ := l.Allow("a", t0); !ok {
		t.Fatal("first post refused")
	}
	later := t0.Add(11 * time.Minute)
	if ok, _ := l.Allow("b", later); !ok { // sweeps "a"
		t.Fatal("b refused")
	}
	if ok, _ := l.Allow("a", later); !ok {
		t.Fatal("a key idle for 11 minutes was refused")
	}
}

// A slow bucket (an hourly limit) is kept until it has refilled: forgetting
// it after the usual idle time would hand its key a full burst early.
func TestSlowBucketsAreKeptUntilRefilled(t *testing.T) {
	l := ratelimit.NewKeyed(1.0/360, 2) // 10 an hour, bursts of 2
	for range 2 {
		if ok, _ := l.Allow("a", t0); !ok {
			t.Fatal("a post within the burst refused")
		}
	}
	later := t0.Add(11 * time.Minute)
	l.Allow("b", later) // sweeps what is idle
	if ok, _ := l.Allow("a", later); !ok {
		t.Fatal("one token is back after 6 minutes")
	}
	if ok, wait := l.Allow("a", later); ok || wait <= 0 {
		t.Fatalf("a second token after 11 minutes: ok=%v wait=%v, want refused (the bucket was forgotten)", ok, wait)
	}
}

func TestATakenTokenCanBeGivenBack(t *testing.T) {
	l := ratelimit.NewKeyed(1.0/3600, 1)
	ok, _, giveBack := l.Take("a", t0)
	if !ok {
		t.Fatal("first attempt refused")
	}
	giveBack()
	if ok, _, _ := l.Take("a", t0); !ok {
		t.Fatal("the token given back was not there")
	}
	if ok, wait, _ := l.Take("a", t0); ok || wait <= 0 {
		t.Fatalf("the bucket is empty: ok=%v wait=%v", ok, wait)
	}
}
