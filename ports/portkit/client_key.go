package portkit

import "net/netip"

// ClientKey is the bucket a client's address is counted in by the per-client
// limits: an IPv4 address itself, an IPv6 address by its /64. One subscriber
// usually holds a whole /64, so keying on the full address would give it
// 2^64 buckets. An address that does not parse is its own key.
func ClientKey(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	return AddrKey(addr)
}

// AddrKey is ClientKey of a parsed address.
func AddrKey(addr netip.Addr) string {
	addr = addr.Unmap()
	if addr.Is4() || !addr.IsValid() {
		return addr.String()
	}
	prefix, _ := addr.Prefix(64)
	return prefix.String()
}
