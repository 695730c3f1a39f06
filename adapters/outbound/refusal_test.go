package outbound

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/formd/formd/application"
)

// Security review: a webhook refused by the SSRF guard was retried 8 times,
// and numeric hosts such as 2130706433 went to DNS instead of being read as
// the IPv4 addresses browsers see in them.
func TestRefusedAddressesFailForGood(t *testing.T) {
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer receiver.Close()
	s, err := NewSender(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{
		receiver.URL,                // loopback: the guard refuses it at dial time
		"https://2130706433/hook",   // 127.0.0.1 as one number
		"https://0x7f.1/hook",       // hexadecimal
		"https://0177.0.0.1/hook",   // octal
		"https://127.1/hook",        // shortened
		"https://[::1]:443/hook",    // IPv6 loopback
		"https://169.254.169.254/x", // cloud metadata
	} {
		err := s.Send(context.Background(), application.Webhook{ID: "d1", URL: target, Body: []byte(`{}`)})
		if !errors.Is(err, application.ErrPermanent) {
			t.Errorf("%s: Send = %v, want a permanent failure (no retries)", target, err)
		}
	}
}
