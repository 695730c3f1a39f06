package portkit

import (
	"net/netip"
	"testing"
)

// One IPv6 subscriber holds a /64: rotating addresses inside it must not
// give it fresh buckets; IPv4 neighbours are not grouped.
func TestClientKey(t *testing.T) {
	for ip, want := range map[string]string{
		"192.0.2.1":            "192.0.2.1",
		"::ffff:192.0.2.1":     "192.0.2.1",
		"2001:db8::1":          "2001:db8::/64",
		"2001:db8:0:0:1::9":    "2001:db8::/64",
		"2001:db8:1:2:ffff::9": "2001:db8:1:2::/64",
		"not an ip":            "not an ip",
	} {
		if got := ClientKey(ip); got != want {
			t.Errorf("ClientKey(%q) = %q, want %q", ip, got, want)
		}
	}
	if got := AddrKey(netip.Addr{}); got != "invalid IP" {
		t.Errorf("AddrKey of no address = %q, want the zero address's own key", got)
	}
}
