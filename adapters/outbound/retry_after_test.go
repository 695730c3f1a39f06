package outbound_test

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/outbound"
	"github.com/formd/formd/application"
)

// A receiver answering 429 or 503 with Retry-After, as delta-seconds or as
// an HTTP-date, gets an application.RetryAfter carrying its wait; a value
// that cannot be read, or asks for no wait, leaves the schedule alone.
func TestSendPassesOnTheReceiversRetryAfter(t *testing.T) {
	s := sender(t, outbound.Options{AllowPrivate: true})
	date := func(d time.Duration) func() string {
		return func() string { return time.Now().Add(d).UTC().Format(http.TimeFormat) }
	}
	fixed := func(v string) func() string { return func() string { return v } }
	tests := []struct {
		name     string
		header   func() string // evaluated by the receiver as it answers
		min, max time.Duration // the wait expected; 0, 0 for none
		says     string        // in the error, so in the delivery log
	}{
		{"delta-seconds", fixed("120"), 120 * time.Second, 120 * time.Second, "; it asked to retry after 120 s"},
		{"delta-seconds with spaces", fixed(" 30 "), 30 * time.Second, 30 * time.Second, "; it asked to retry after 30 s"},
		{"an HTTP-date", date(2 * time.Minute), 115 * time.Second, 120 * time.Second, "; it asked to retry after 1"},
		{"an obsolete RFC 850 date", func() string { return time.Now().Add(time.Hour).UTC().Format(time.RFC850) }, 59 * time.Minute, time.Hour, "; it asked to retry after 3"},
		{"a number too large for a Duration", fixed("99999999999999999999"), math.MaxInt64, math.MaxInt64, "; it asked to retry after 9223372037 s"},
		{"zero", fixed("0"), 0, 0, ""},
		{"negative", fixed("-5"), 0, 0, ""},
		{"a fraction", fixed("1.5"), 0, 0, ""},
		{"not a number or date", fixed("soon"), 0, 0, ""},
		{"a date in the past", date(-time.Hour), 0, 0, ""},
		{"absent", nil, 0, 0, ""},
	}
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%d %s", status, tt.name), func(t *testing.T) {
				calls := 0
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					calls++
					if tt.header != nil {
						w.Header().Set("Retry-After", tt.header())
					}
					w.WriteHeader(status)
				}))
				t.Cleanup(srv.Close)
				err := send(t, s, srv.URL+"/hook")
				if err == nil || errors.Is(err, application.ErrPermanent) || calls != 1 {
					t.Fatalf("Send = %v after %d calls; want one call and a transient failure", err, calls)
				}
				if want := fmt.Sprintf("receiver answered %d%s", status, tt.says); !strings.HasPrefix(err.Error(), want) {
					t.Errorf("error %q, want it to begin %q", err, want)
				}
				var ra *application.RetryAfter
				found := errors.As(err, &ra)
				if tt.max == 0 {
					if found {
						t.Errorf("Send = %#v; want no Retry-After from %q", ra, tt.name)
					}
					return
				}
				if !found {
					t.Fatalf("Send = %v; want an application.RetryAfter", err)
				}
				if ra.Wait < tt.min || ra.Wait > tt.max {
					t.Errorf("wait %v, want within [%v, %v]", ra.Wait, tt.min, tt.max)
				}
			})
		}
	}
}

// Only 429 and 503 carry a wait the receiver means for us; a Retry-After on
// another answer is not honoured (a 3xx uses it for redirects).
func TestSendIgnoresRetryAfterOnOtherAnswers(t *testing.T) {
	s := sender(t, outbound.Options{AllowPrivate: true})
	for _, status := range []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusMovedPermanently} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(status)
		}))
		err := send(t, s, srv.URL)
		srv.Close()
		var ra *application.RetryAfter
		if err == nil || errors.As(err, &ra) {
			t.Errorf("%d with Retry-After: Send = %v; want a failure without a receiver's wait", status, err)
		}
	}
}
