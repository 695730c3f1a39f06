package portkit

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"regexp"
)

// RequestIDHeader names a request's id in requests and answers.
const RequestIDHeader = "X-Request-Id"

// saneRequestID is an incoming request id formd keeps: short, and nothing a
// log line or a header could be broken with.
var saneRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{8,64}$`)

// IsSaneRequestID reports whether id is one formd keeps as it is given.
func IsSaneRequestID(id string) bool { return saneRequestID.MatchString(id) }

// RequestID is the id a request is known by: the incoming one when it is
// sane, so a caller can follow its own id through formd's logs, else a new one.
func RequestID(incoming string) string {
	if IsSaneRequestID(incoming) {
		return incoming
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "req_" + hex.EncodeToString(b[:])
}

// StatusWriter remembers the status a handler answered with, for the
// access log and the metrics.
type StatusWriter struct {
	http.ResponseWriter
	// Status is the answer's status; 0 until the handler writes.
	Status int
}

// WriteHeader records the first status and passes it on.
func (w *StatusWriter) WriteHeader(status int) {
	if w.Status == 0 {
		w.Status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

// Write records 200 when the handler wrote no status first.
func (w *StatusWriter) Write(b []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets a streamed answer through the wrapper.
func (w *StatusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *StatusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
