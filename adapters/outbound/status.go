package outbound

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/formd/formd/application"
)

// statusError is what an unsuccessful answer means for the delivery, the
// same for every integration: 410 Gone is application.ErrGone; a 4xx other
// than 408 and 429 cannot be fixed by retrying, so it is permanent; a 429
// or 503 with a Retry-After header is an application.RetryAfter carrying
// the service's wait; anything else may be retried on the schedule.
func statusError(resp *http.Response, reason string) error {
	switch {
	case resp.StatusCode == http.StatusGone:
		return fmt.Errorf("%w: %s", application.ErrGone, reason)
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable:
		failure := errors.New(reason)
		if wait, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return &application.RetryAfter{Wait: wait, Err: failure}
		}
		return failure
	case resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusRequestTimeout:
		return permanent("%s", reason)
	}
	return errors.New(reason)
}
