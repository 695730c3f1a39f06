package httpapi

import (
	"time"

	"github.com/gin-gonic/gin"
)

// RequestObserver hears about every request the main listener answers, for
// latency metrics. route is the route as registered (gin's FullPath, such as
// /submit/:accessKey), empty when no route matched: never the raw path,
// which would carry access keys and tokens into labels.
type RequestObserver interface {
	ObserveRequest(route, method string, status int, took time.Duration)
}

// observeRequests reports each request's route, status and duration. It
// runs outermost, so time spent in every other middleware (and a recovered
// panic's 500) is counted.
func observeRequests(o RequestObserver) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		o.ObserveRequest(c.FullPath(), c.Request.Method, c.Writer.Status(), time.Since(start))
	}
}
