// Package ratelimit holds formd's in-process token buckets: a first line of
// defence that each process keeps for itself. Nothing here is a quota
// (quotas are counted in PostgreSQL); two processes each allow a full rate.
package ratelimit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// idleAfter is how long a key's bucket is kept unused. A bucket idle that
// long has refilled (for any burst over a rate of at least one a second
// within it), so forgetting it changes no answer while the map stays the
// size of the keys actually posting.
const idleAfter = 10 * time.Minute

// Keyed is a token bucket per key (a form id, say); it implements
// application.FormFloodLimits.
type Keyed struct {
	mu      sync.Mutex
	perSec  rate.Limit
	burst   int
	idle    time.Duration // how long an unused bucket is kept
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// NewKeyed allows each key perSec a second with bursts of burst; a rate of 0
// allows everything.
func NewKeyed(perSec float64, burst int) *Keyed {
	k := &Keyed{perSec: rate.Limit(perSec), burst: max(burst, 1), idle: idleAfter, buckets: map[string]*bucket{}}
	// A slow bucket is kept until it has refilled, else forgetting it would
	// hand a key a full burst early.
	if perSec > 0 {
		k.idle = max(idleAfter, time.Duration(float64(k.burst)/perSec*float64(time.Second)))
	}
	return k
}

// Allow takes a token of key's bucket at now; when the bucket is empty it
// says how long until it holds one again.
func (k *Keyed) Allow(key string, now time.Time) (bool, time.Duration) {
	ok, wait, _ := k.Take(key, now)
	return ok, wait
}

// Take is Allow that can give the token back: giveBack (never nil) returns
// it when the attempt it paid for turns out not to count.
func (k *Keyed) Take(key string, now time.Time) (ok bool, wait time.Duration, giveBack func()) {
	if k.perSec <= 0 {
		return true, 0, func() {}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if now.Sub(k.swept) > time.Minute {
		for key, b := range k.buckets {
			if now.Sub(b.seen) > k.idle {
				delete(k.buckets, key)
			}
		}
		k.swept = now
	}
	b, found := k.buckets[key]
	if !found {
		b = &bucket{lim: rate.NewLimiter(k.perSec, k.burst)}
		k.buckets[key] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d, func() {}
	}
	return true, 0, func() { r.CancelAt(now) }
}
