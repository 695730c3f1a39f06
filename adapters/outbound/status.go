package outbound

import (
	"fmt"
	"net/http"

	"github.com/formd/formd/application"
)

// statusError is what an unsuccessful answer means for the delivery:
// 410 Gone is application.ErrGone; a 4xx other than 408 and 429 cannot be
// fixed by retrying, so it is permanent; anything else may be retried.
func statusError(resp *http.Response, reason string) error {
	switch {
	case resp.StatusCode == http.StatusGone:
		return fmt.Errorf("%w: %s", application.ErrGone, reason)
	case resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusRequestTimeout &&
		resp.StatusCode != http.StatusTooManyRequests:
		return permanent("%s", reason)
	}
	return fmt.Errorf("%s", reason)
}
