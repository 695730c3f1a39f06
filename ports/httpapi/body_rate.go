package httpapi

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/gin-gonic/gin"
)

// bodyRateWindow is the span over which a body must bring its minimum
// number of bytes.
const bodyRateWindow = 10 * time.Second

// answerWindow is how long the answer to a request may take to write once
// its body stopped arriving: the server's write timeout counts from the
// request's headers, which a long but steady upload would outlast.
const answerWindow = 60 * time.Second

// errBodyTooSlow ends a body that arrived slower than the minimum rate.
var errBodyTooSlow = errors.New("The request body arrived too slowly.") //nolint:staticcheck // a user-facing message

// minBodyRate cuts off a request body that brings fewer than bytesPerSecond
// bytes in any window (bodyRateWindow in service): a client that trickles its body
// holds a connection and what has arrived only for one window past its
// last progress, instead of the server's whole read timeout, while a slow
// but steady upload of any size goes through. Zero turns it off.
func minBodyRate(bytesPerSecond int64, window time.Duration) gin.HandlerFunc {
	return func(c *gin.Context) {
		if bytesPerSecond <= 0 || c.Request.Body == nil || c.Request.Body == http.NoBody {
			c.Next()
			return
		}
		rc := http.NewResponseController(c.Writer)
		if err := rc.SetReadDeadline(time.Now().Add(window)); err != nil {
			c.Next() // a connection without deadlines (tests' recorders) keeps the server's timeouts
			return
		}
		perWindow := max(1, int64(float64(bytesPerSecond)*window.Seconds()))
		c.Request.Body = &minRateBody{ReadCloser: c.Request.Body, rc: rc, window: window, perWindow: perWindow}
		c.Next()
	}
}

// minRateBody moves the connection's read deadline one window ahead each
// time a window's worth of bytes has arrived, and its write deadline with
// it, so that the answer to a long upload can still be written.
type minRateBody struct {
	io.ReadCloser
	rc        *http.ResponseController
	window    time.Duration
	perWindow int64
	got       int64
}

func (b *minRateBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.got += int64(n); b.got >= b.perWindow || err == io.EOF {
		b.got = 0
		now := time.Now()
		_ = b.rc.SetReadDeadline(now.Add(b.window))
		_ = b.rc.SetWriteDeadline(now.Add(b.window + answerWindow))
	}
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		return n, errBodyTooSlow
	}
	return n, err
}
