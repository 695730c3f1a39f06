package web

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/formd/formd/ports/portkit"
)

// Signing in and registering check a password with Argon2id (19 MiB, a few
// milliseconds of a core), with no credential needed. The dashboard guards
// them as POST /agent/auth is guarded (docs/configuration.md: FORMD_AUTH_RATE): a per-IP and
// a per-account attempt limit (per process), and at most as many checks at
// once as formd has cores. The dashboard has its own buckets and slots, so
// the API and the dashboard each allow the configured rate.

// Messages of a refused attempt, shown above the form.
const (
	msgTooManyAttempts = "Too many sign-in or registration attempts. Wait a minute and try again."
	msgBusy            = "formd is busy checking other passwords. Try again in a moment."
	// msgTooManyRegistrations answers a registration over the per-network
	// limit (FORMD_REGISTER_RATE), whether or not the address has an account.
	msgTooManyRegistrations = "Too many registrations from this network. Try again later."
)

// allowAttempt takes a token of the client's and (when email is given) the
// account's buckets; it answers the message to show when either is empty.
func (s *Server) allowAttempt(r *http.Request, email string) (bool, string) {
	now := time.Now()
	if l := s.config.SignInPerIP; l != nil {
		if ok, _ := l.Allow(portkit.AddrKey(s.proxies.clientIP(r)), now); !ok {
			return false, msgTooManyAttempts
		}
	}
	if l := s.config.SignInPerAccount; l != nil && email != "" {
		if ok, _ := l.Allow(strings.ToLower(strings.TrimSpace(email)), now); !ok {
			return false, msgTooManyAttempts
		}
	}
	return true, ""
}

// trustedProxies are the addresses allowed to name the client in
// X-Forwarded-For (FORMD_TRUSTED_PROXIES), as the JSON API trusts them.
type trustedProxies []netip.Prefix

func parseTrustedProxies(list []string, log *slog.Logger) trustedProxies {
	var out trustedProxies
	for _, p := range list {
		if prefix, err := netip.ParsePrefix(p); err == nil {
			out = append(out, prefix.Masked())
		} else if addr, err := netip.ParseAddr(p); err == nil {
			out = append(out, netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen()))
		} else {
			log.Error("invalid trusted proxy; ignored by the dashboard", "proxy", p)
		}
	}
	return out
}

func (t trustedProxies) trusts(a netip.Addr) bool {
	for _, p := range t {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

// clientIP is the peer's address, or, when the peer is a trusted proxy, the
// last address in X-Forwarded-For that is not one.
func (t trustedProxies) clientIP(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	peer = peer.Unmap()
	if !t.trusts(peer) {
		return peer
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return peer
		}
		if !t.trusts(a) {
			return a.Unmap()
		}
	}
	return peer
}
