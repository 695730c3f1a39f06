package postgres

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/formd/formd/application"
)

// formCacheTTL bounds how stale a cached form may be. Staleness never reaches
// a commit: the submission store re-checks the version, and a rejection is
// always re-judged on fresh data.
const (
	formCacheTTL     = 2 * time.Second
	formCacheEntries = 10000
)

// FormCache implements application.SubmissionForms over the forms read model
// with a short-lived per-process cache, keeping /submit off the database for
// routing.
type FormCache struct {
	read   *ReadModel
	flight singleflight.Group
	mu     sync.RWMutex
	m      map[string]cachedForm
}

type cachedForm struct {
	rec     application.FormRecord
	fetched time.Time
}

// NewFormCache builds an empty cache.
func NewFormCache(read *ReadModel) *FormCache {
	return &FormCache{read: read, m: make(map[string]cachedForm)}
}

// FormByID implements application.SubmissionForms: never cached.
func (c *FormCache) FormByID(ctx context.Context, id string) (application.FormRecord, error) {
	return c.read.FormByID(ctx, id)
}

// FormByAccessKey implements application.SubmissionForms.
func (c *FormCache) FormByAccessKey(ctx context.Context, hash []byte, fresh bool) (application.FormRecord, error) {
	key := string(hash)
	if !fresh {
		c.mu.RLock()
		e, ok := c.m[key]
		c.mu.RUnlock()
		if ok && time.Since(e.fetched) < formCacheTTL {
			return e.rec, nil
		}
	}
	// One read per key at a time: when an entry expires under load, the
	// concurrent requests share it instead of all reading at once.
	// A fresh read never joins one that may have started before the change
	// it must see.
	var rec application.FormRecord
	var err error
	if fresh {
		rec, err = c.read.FormByAccessKeyHash(ctx, hash)
	} else {
		var v any
		v, err, _ = c.flight.Do(key, func() (any, error) { return c.read.FormByAccessKeyHash(ctx, hash) })
		if err == nil {
			rec = v.(application.FormRecord)
		}
	}
	if err != nil {
		return application.FormRecord{}, err
	}
	c.mu.Lock()
	if len(c.m) >= formCacheEntries {
		for k := range c.m { // evict an arbitrary entry; the map is only a cache
			delete(c.m, k)
			break
		}
	}
	c.m[key] = cachedForm{rec: rec, fetched: time.Now()}
	c.mu.Unlock()
	return rec, nil
}
