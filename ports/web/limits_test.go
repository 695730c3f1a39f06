package web

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
)

// The client an attempt is counted against: the peer, unless the peer is a
// trusted proxy, which may name the client in X-Forwarded-For.
func TestClientIPTrustsOnlyTheConfiguredProxies(t *testing.T) {
	proxies := parseTrustedProxies([]string{"10.0.0.0/8", "192.0.2.7"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, tc := range []struct{ peer, forwarded, want string }{
		{"203.0.113.5:1234", "198.51.100.1", "203.0.113.5"},          // an untrusted peer cannot claim another address
		{"10.1.2.3:1234", "198.51.100.1", "198.51.100.1"},            // a trusted proxy names the client
		{"10.1.2.3:1234", "198.51.100.1, 10.9.9.9", "198.51.100.1"},  // through a chain of trusted proxies
		{"192.0.2.7:1234", "6.6.6.6, 198.51.100.2", "198.51.100.2"},  // the last untrusted hop, not a spoofed first
		{"10.1.2.3:1234", "", "10.1.2.3"},                            // nothing forwarded: the proxy itself
		{"10.1.2.3:1234", "not an address", "10.1.2.3"},              // garbage: the proxy itself
		{"[2001:db8::1]:1234", "", "2001:db8::1"},                    // IPv6 peer
		{"[::ffff:203.0.113.5]:1234", "198.51.100.1", "203.0.113.5"}, // IPv4-mapped peer
	} {
		r := httptest.NewRequest("POST", "/dashboard/sign-in", nil)
		r.RemoteAddr = tc.peer
		if tc.forwarded != "" {
			r.Header.Set("X-Forwarded-For", tc.forwarded)
		}
		if got := proxies.clientIP(r); got.String() != tc.want {
			t.Errorf("peer %s, forwarded %q: client %s, want %s", tc.peer, tc.forwarded, got, tc.want)
		}
	}
}
