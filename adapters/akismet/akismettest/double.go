// Package akismettest is a local double of Akismet's REST API for tests: an
// HTTP server on 127.0.0.1 that answers comment-check, submit-spam and
// submit-ham as Akismet does, and records what it was sent.
//
// It accepts one API key. comment-check answers "true" when the comment's
// content holds SpamMarker or the author's address is SpamEmail (Akismet's
// documented test values, which it always calls spam), "true" with the
// discard pro tip when the content holds DiscardMarker (the double's own
// stand-in for blatant spam), and "false" otherwise. Any other key is
// answered "invalid" with debug help, as Akismet answers a key it rejects.
package akismettest

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
)

// The values the double classifies as spam.
const (
	// SpamMarker is Akismet's test author name: content holding it is spam.
	SpamMarker = "viagra-test-123"
	// SpamEmail is Akismet's test address: a comment from it is spam.
	SpamEmail = "akismet-guaranteed-spam@example.com"
	// DiscardMarker in the content is spam with the discard pro tip.
	DiscardMarker = "akismet-discard-test-123"
)

// Thanks is the answer of submit-spam and submit-ham.
const Thanks = "Thanks for making the web a better place."

// Request is one request the double received.
type Request struct {
	// Path is the request's path, such as /1.1/comment-check.
	Path string
	// Form is the request's form-encoded body.
	Form url.Values
}

// Double is a running Akismet double.
type Double struct {
	// URL is the double's base address, for FORMD_AKISMET_URL.
	URL    string
	key    string
	server *httptest.Server
	mu     sync.Mutex
	seen   []Request
}

// Start runs a double that accepts key, on a loopback port.
func Start(key string) *Double {
	d := &Double{key: key}
	d.server = httptest.NewServer(http.HandlerFunc(d.serve))
	d.URL = d.server.URL
	return d
}

// Close stops the double.
func (d *Double) Close() { d.server.Close() }

// Requests are the requests received so far, oldest first.
func (d *Double) Requests() []Request {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Request(nil), d.seen...)
}

func (d *Double) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		http.Error(w, "a form-encoded POST, please", http.StatusBadRequest)
		return
	}
	d.mu.Lock()
	d.seen = append(d.seen, Request{Path: r.URL.Path, Form: r.PostForm})
	d.mu.Unlock()
	if r.PostForm.Get("api_key") != d.key {
		w.Header().Set("X-akismet-debug-help", "We were unable to verify your API key.")
		_, _ = w.Write([]byte("invalid"))
		return
	}
	switch r.URL.Path {
	case "/1.1/comment-check":
		content := r.PostForm.Get("comment_content")
		switch {
		case strings.Contains(content, DiscardMarker):
			w.Header().Set("X-akismet-pro-tip", "discard")
			_, _ = w.Write([]byte("true"))
		case strings.Contains(content, SpamMarker) || r.PostForm.Get("comment_author_email") == SpamEmail:
			_, _ = w.Write([]byte("true"))
		default:
			_, _ = w.Write([]byte("false"))
		}
	case "/1.1/submit-spam", "/1.1/submit-ham":
		_, _ = w.Write([]byte(Thanks))
	default:
		http.NotFound(w, r)
	}
}
