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
	return &Keyed{perSec: rate.Limit(perSec), burst: max(burst, 1), buckets: map[string]*bucket{}}
}

// Allow takes a token of key's bucket at now; when the bucket is empty it
// says how long until it holds one again.
func (k *Keyed) Allow(key string, now time.Time) (bool, time.Duration) {
	if k.perSec <= 0 {
		return true, 0
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if now.Sub(k.swept) > time.Minute {
		for key, b := range k.buckets {
			if now.Sub(b.seen) > idleAfter {
				delete(k.buckets, key)
			}
		}
		k.swept = now
	}
	b, ok := k.buckets[key]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(k.perSec, k.burst)}
		k.buckets[key] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}
