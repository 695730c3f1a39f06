package portkit

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// SetRetryAfter sets Retry-After to wait in whole seconds, rounded up and at
// least one: a client told "0" would come straight back.
func SetRetryAfter(h http.Header, wait time.Duration) {
	h.Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
}
