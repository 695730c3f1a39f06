package httpapi

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// fileBudget bounds the file bytes that multipart posts hold while they
// arrive (in memory or in temporary files), in this process and per client.
// A post's files are charged as their bytes arrive and released when the
// request ends, so a client that holds back the end of its bodies holds at
// most perClient bytes, and all clients together at most total. It is a
// process's first line of defence, as memory is per process; nothing about
// it needs to be shared.
type fileBudget struct {
	total, perClient int64

	mu       sync.Mutex
	used     int64
	byClient map[string]int64
}

func newFileBudget(total, perClient int64) *fileBudget {
	return &fileBudget{total: total, perClient: perClient, byClient: map[string]int64{}}
}

// budgetError refuses a post whose files do not fit the budget: 429 with a
// Retry-After, as the bytes come free when other posts end.
func budgetError(perClient bool) *decodeError {
	msg := "Too many files are being received right now. Try again in a moment."
	if perClient {
		msg = "Too many files are being sent from this address at once. Try again in a moment."
	}
	return &decodeError{status: http.StatusTooManyRequests, message: msg, retryAfter: 5 * time.Second}
}

// take charges n bytes to client, or refuses when either bound would be
// passed.
func (b *fileBudget) take(client string, n int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byClient[client]+n > b.perClient {
		return budgetError(true)
	}
	if b.used+n > b.total {
		return budgetError(false)
	}
	b.used += n
	b.byClient[client] += n
	return nil
}

// give returns n bytes of client's.
func (b *fileBudget) give(client string, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	if left := b.byClient[client] - n; left > 0 {
		b.byClient[client] = left
	} else {
		delete(b.byClient, client)
	}
}

// inUse is the bytes held now.
func (b *fileBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// fileHold is one request's share of the budget, given back when the
// request ends.
type fileHold struct {
	budget *fileBudget
	client string
	held   int64
}

func (h *fileHold) take(n int64) error {
	if h == nil || h.budget == nil {
		return nil
	}
	if err := h.budget.take(h.client, n); err != nil {
		return err
	}
	h.held += n
	return nil
}

func (h *fileHold) release() {
	if h == nil || h.budget == nil || h.held == 0 {
		return
	}
	h.budget.give(h.client, h.held)
	h.held = 0
}

// chargedReader charges what is read to the file budget; past it, the read
// fails with the budget's refusal.
type chargedReader struct {
	r    io.Reader
	hold *fileHold
}

func (c *chargedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		if err := c.hold.take(int64(n)); err != nil {
			return 0, err
		}
	}
	if errors.Is(err, errBodyTooSlow) {
		return n, &decodeError{status: http.StatusRequestTimeout, message: errBodyTooSlow.Error()}
	}
	return n, err
}
