package httpapi

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/ports/portkit"
)

// boundSubmissions answers 429 with Retry-After while limit submissions are
// already in flight in this process. Past the rate formd can commit and
// deliver, every request waiting for its commit holds a goroutine, its
// connection's buffers and its body: offered more than it can take, formd
// would keep thousands open, pass its soft memory limit, and accept and
// deliver less than it does at lower rates (see docs/performance.md). A prompt
// refusal costs a client a retry, where waiting cost every client the
// service. The bound is per process, as memory is; nothing about it needs
// to be shared, so it lives in memory.
func (s *Server) boundSubmissions(limit int) gin.HandlerFunc {
	slots := make(chan struct{}, limit)
	return func(c *gin.Context) {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			c.Next()
		default:
			portkit.SetRetryAfter(c.Writer.Header(), time.Second)
			s.submitFailed(c, isJavaScriptClient(c.Request), http.StatusTooManyRequests, reasonBusy,
				msgBusy, nil)
		}
	}
}
