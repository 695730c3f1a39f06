package outbound

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"time"

	"code.dny.dev/ssrf"

	"github.com/formd/formd/application"
)

// Options configure every outbound HTTP client of the integrations.
type Options struct {
	// AllowPrivate lets deliveries reach loopback and private networks (tests only).
	AllowPrivate bool
	// CAFile adds a PEM certificate authority to the system pool (tests only).
	CAFile string
	// TelegramBotToken is the operator's bot; blank means no Telegram.
	TelegramBotToken string
	// TelegramAPIURL is the Bot API's address (DefaultTelegramAPIURL when blank).
	TelegramAPIURL string
	// GoogleCredentialsFile holds the operator's service account JSON;
	// blank means no Google Sheets.
	GoogleCredentialsFile string
	// GoogleTokenURL is where service-account tokens are fetched (the
	// credentials' token_uri, else Google's, when blank).
	GoogleTokenURL string
	// GoogleSheetsURL is the Sheets API's address (DefaultGoogleSheetsURL when blank).
	GoogleSheetsURL string
}

// requestTimeout bounds one outbound request, Standard Webhooks' recommendation.
const requestTimeout = 15 * time.Second

// clients are the two HTTP clients of the integrations.
type clients struct {
	// tenant sends to addresses the users of formd chose (webhooks, Slack,
	// Discord): every connection dials through the SSRF guard, whatever
	// host and port the URL names.
	tenant *http.Client
	// operator sends to the endpoints whoever runs formd configured (the
	// Telegram Bot API, Google's token and Sheets addresses): trusted
	// configuration, dialled without the guard so a test or an on-premises
	// gateway may be on loopback. No user-supplied URL is ever sent with it.
	operator *http.Client
}

// newClients builds both clients. The tenant's checks the resolved IP at
// connect time (after DNS, so a name cannot lead inside). Neither follows
// a redirect (one would take a request past the guard, or lead the
// operator's client anywhere) nor uses a proxy from the environment (a
// proxy would dial for us, past the guard).
func newClients(o Options) (clients, error) {
	guard := ssrf.New(ssrf.WithPorts(80, 443))
	if o.AllowPrivate {
		guard = ssrf.New(ssrf.WithAnyPort(),
			ssrf.WithAllowedV4Prefixes(netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8"),
				netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("192.168.0.0/16")),
			ssrf.WithAllowedV6Prefixes(netip.MustParsePrefix("::1/128")))
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return clients{}, err
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return clients{}, errors.New("webhook CA file holds no PEM certificate")
		}
		tlsConfig.RootCAs = pool
	}
	client := func(d *net.Dialer) *http.Client {
		return &http.Client{
			Timeout: requestTimeout,
			// Proxy is deliberately nil: HTTP(S)_PROXY from the environment is ignored.
			Transport:     &http.Transport{DialContext: d.DialContext, TLSClientConfig: tlsConfig.Clone(), MaxIdleConnsPerHost: 4},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return clients{
		tenant:   client(&net.Dialer{Timeout: 5 * time.Second, Control: guard.Safe}),
		operator: client(&net.Dialer{Timeout: 5 * time.Second}),
	}, nil
}

// transportError is a failed request's error without the request's URL,
// whose path or query may be a secret (a Slack or Discord webhook URL is
// its own credential): the delivery log keeps the host and the cause. An
// address the SSRF guard refuses is a permanent failure saying why, since
// retrying cannot help.
func transportError(host string, err error) error {
	if why, ok := refusal(host, err); ok {
		return permanent("refused: %s (SSRF guard)", why)
	}
	var u *url.Error
	if errors.As(err, &u) {
		err = u.Err
	}
	return fmt.Errorf("%s: %w", host, err)
}

// refusal says why the SSRF guard refused to dial host, if it did.
func refusal(host string, err error) (string, bool) {
	if !errors.Is(err, ssrf.ErrProhibitedIP) && !errors.Is(err, ssrf.ErrProhibitedPort) && !errors.Is(err, ssrf.ErrProhibitedNetwork) {
		return "", false
	}
	var op *net.OpError
	var tcp *net.TCPAddr
	if errors.As(err, &op) {
		tcp, _ = op.Addr.(*net.TCPAddr)
	}
	if tcp == nil {
		// Not expected from net.Dialer: the guard's own words, without the URL.
		var u *url.Error
		if errors.As(err, &u) {
			err = u.Err
		}
		return fmt.Sprintf("%s: %v", host, err), true
	}
	addr := tcp.AddrPort()
	switch {
	case errors.Is(err, ssrf.ErrProhibitedNetwork):
		return fmt.Sprintf("%s: network %s is not allowed", host, op.Net), true
	case errors.Is(err, ssrf.ErrProhibitedPort):
		return fmt.Sprintf("port %d is not allowed, only 80 and 443", addr.Port()), true
	}
	ip := addr.Addr().Unmap()
	class := addressClass(ip)
	written, err := netip.ParseAddr(host)
	switch {
	case err == nil && written == ip:
		return fmt.Sprintf("%s is %s", ip, class), true
	case err == nil && written.Is4In6():
		return fmt.Sprintf("%s is IPv4-mapped %s, %s", host, ip, class), true
	}
	return fmt.Sprintf("%s is %s, %s", host, ip, class), true
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// addressClass names the kind of address ip is, for a refusal the owner of
// a form can act on.
func addressClass(ip netip.Addr) string {
	switch {
	case ip.IsUnspecified():
		return "an unspecified address"
	case ip.IsLoopback():
		return "a loopback address"
	case ip == netip.AddrFrom4([4]byte{169, 254, 169, 254}):
		return "a link-local address (cloud metadata)"
	case ip.IsLinkLocalUnicast():
		return "a link-local address"
	case ip.IsMulticast():
		return "a multicast address"
	case ip.IsPrivate() && ip.Is4():
		return "a private (RFC 1918) address"
	case ip.IsPrivate():
		return "a unique-local address"
	case cgnat.Contains(ip):
		return "a shared (CGNAT) address"
	}
	return "a reserved address"
}

// permanent marks err as a failure no retry can fix.
func permanent(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{application.ErrPermanent}, args...)...)
}
