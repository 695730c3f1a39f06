package outbound_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/formd/formd/adapters/outbound"
	"github.com/formd/formd/application"
)

// countingListener accepts TCP connections on addr (loopback only) and
// counts them, closing each: proof that a refused delivery never connected.
func countingListener(t *testing.T, addr string) (*atomic.Int32, string, error) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", err
	}
	t.Cleanup(func() { _ = l.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			_ = c.Close()
		}
	}()
	return &n, l.Addr().String(), nil
}

// The SSRF matrix (issue 10): with FORMD_WEBHOOK_ALLOW_PRIVATE off, every
// class of internal address is refused, written as an IP, in the numeric
// forms browsers read as IPv4, behind a name (the guard checks the resolved
// IP at connect time, after DNS) or on a port other than 80 and 443. Each
// refusal is a permanent failure (the delivery fails at once) whose reason
// names the address and its class and never the URL's path or query.
func TestTheSSRFGuardRefusesEveryInternalAddress(t *testing.T) {
	// Loopback listeners on 80 and 443 catch a connection the guard should
	// have refused for 127.0.0.1, ::1, localhost, 0.0.0.0, :: and
	// ::ffff:127.0.0.1 (Linux routes the unspecified address to loopback).
	// Binding them needs privileges; without them the port-refusal case
	// below still proves that nothing connects.
	watched := map[string]*atomic.Int32{}
	for _, addr := range []string{"127.0.0.1:443", "[::1]:443", "127.0.0.1:80", "[::1]:80"} {
		n, _, err := countingListener(t, addr)
		if err != nil {
			t.Logf("no listener on %s (%v): connections to it are not counted", addr, err)
			continue
		}
		watched[addr] = n
	}
	anyPort, anyPortAddr, err := countingListener(t, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	watched[anyPortAddr] = anyPort
	_, port, _ := net.SplitHostPort(anyPortAddr)

	numeric := func(host string) string {
		return `refused: ` + regexp.QuoteMeta(host) + ` is a numeric address not written in dotted decimal \(SSRF guard\)$`
	}
	tests := []struct {
		class, host string
		says        string // a regexp the error matches; %s is the host as written
	}{
		{"loopback", "127.0.0.1", `refused: 127\.0\.0\.1 is a loopback address \(SSRF guard\)$`},
		{"loopback, shortened", "127.1", numeric("127.1")},
		{"loopback, one decimal number", "2130706433", numeric("2130706433")},
		{"loopback, hexadecimal", "0x7f.1", numeric("0x7f.1")},
		{"loopback, octal", "0177.0.0.1", numeric("0177.0.0.1")},
		{"IPv6 loopback", "[::1]", `refused: ::1 is a loopback address \(SSRF guard\)$`},
		{"RFC 1918 10/8", "10.0.0.1", `refused: 10\.0\.0\.1 is a private \(RFC 1918\) address \(SSRF guard\)$`},
		{"RFC 1918 172.16/12", "172.16.0.1", `refused: 172\.16\.0\.1 is a private \(RFC 1918\) address \(SSRF guard\)$`},
		{"RFC 1918 192.168/16", "192.168.1.1", `refused: 192\.168\.1\.1 is a private \(RFC 1918\) address \(SSRF guard\)$`},
		{"CGNAT", "100.64.0.1", `refused: 100\.64\.0\.1 is a shared \(CGNAT\) address \(SSRF guard\)$`},
		{"link-local, cloud metadata", "169.254.169.254", `refused: 169\.254\.169\.254 is a link-local address \(cloud metadata\) \(SSRF guard\)$`},
		{"IPv6 link-local", "[fe80::1]", `refused: fe80::1 is a link-local address \(SSRF guard\)$`},
		{"unique-local fc00::/8", "[fc00::1]", `refused: fc00::1 is a unique-local address \(SSRF guard\)$`},
		{"unique-local fd00::/8", "[fd00::1]", `refused: fd00::1 is a unique-local address \(SSRF guard\)$`},
		{"multicast", "224.0.0.1", `refused: 224\.0\.0\.1 is a multicast address \(SSRF guard\)$`},
		{"IPv6 multicast", "[ff02::1]", `refused: ff02::1 is a multicast address \(SSRF guard\)$`},
		{"unspecified", "0.0.0.0", `refused: 0\.0\.0\.0 is an unspecified address \(SSRF guard\)$`},
		{"IPv6 unspecified", "[::]", `refused: :: is an unspecified address \(SSRF guard\)$`},
		{"IPv4-mapped loopback", "[::ffff:127.0.0.1]", `refused: ::ffff:127\.0\.0\.1 is IPv4-mapped 127\.0\.0\.1, a loopback address \(SSRF guard\)$`},
		{"IPv4-mapped RFC 1918", "[::ffff:10.0.0.1]", `refused: ::ffff:10\.0\.0\.1 is IPv4-mapped 10\.0\.0\.1, a private \(RFC 1918\) address \(SSRF guard\)$`},
		{"a name resolving to loopback", "localhost", `refused: localhost is (127\.0\.0\.1|::1), a loopback address \(SSRF guard\)$`},
		{"a port other than 80 and 443", "127.0.0.1:" + port, `refused: port ` + port + ` is not allowed, only 80 and 443 \(SSRF guard\)$`},
	}
	s := sender(t, outbound.Options{})
	for _, tt := range tests {
		for _, scheme := range []string{"https", "http"} {
			t.Run(tt.class+" "+scheme, func(t *testing.T) {
				target := scheme + "://" + tt.host + "/hook?token=s3cret"
				err := send(t, s, target)
				if !errors.Is(err, application.ErrPermanent) {
					t.Fatalf("Send(%s) = %v; want a permanent failure", target, err)
				}
				if !regexp.MustCompile(tt.says).MatchString(err.Error()) {
					t.Errorf("Send(%s) = %q; want it to match %q", target, err, tt.says)
				}
				if regexp.MustCompile(`s3cret|/hook`).MatchString(err.Error()) {
					t.Errorf("Send(%s) = %q: the reason shows the URL's path or query", target, err)
				}
			})
		}
	}
	for addr, n := range watched {
		if got := n.Load(); got != 0 {
			t.Errorf("the listener on %s got %d connections; the guard must refuse before connecting", addr, got)
		}
	}

	// Control: the test switch lets loopback through, so the listeners
	// would have counted a connection the guard let pass.
	open := sender(t, outbound.Options{AllowPrivate: true})
	if err := send(t, open, "http://"+anyPortAddr+"/hook"); errors.Is(err, application.ErrPermanent) {
		t.Errorf("with the switch on, Send to %s = %v; want it dialled", anyPortAddr, err)
	}
	if anyPort.Load() == 0 {
		t.Errorf("with the switch on, the listener on %s got no connection", anyPortAddr)
	}
	if n := watched["127.0.0.1:443"]; n != nil {
		_ = send(t, open, "https://127.0.0.1/hook")
		if n.Load() == 0 {
			t.Error("with the switch on, the listener on 127.0.0.1:443 got no connection")
		}
	}
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(ok.Close)
	if err := send(t, open, ok.URL+"/hook"); err != nil {
		t.Errorf("with the switch on, Send to a loopback receiver = %v; want it delivered", err)
	}
}

// The test switch opens loopback and RFC 1918 networks only: the rest
// stays refused even in tests.
func TestTheTestSwitchStillRefusesTheRest(t *testing.T) {
	s := sender(t, outbound.Options{AllowPrivate: true})
	for _, host := range []string{"169.254.169.254", "100.64.0.1", "[fe80::1]", "[fd00::1]", "224.0.0.1", "0.0.0.0", "[::]", "192.0.2.1"} {
		if err := send(t, s, "https://"+host+"/hook"); !errors.Is(err, application.ErrPermanent) {
			t.Errorf("with the switch on, Send to %s = %v; want a permanent refusal", host, err)
		}
	}
}

// Redirects are never followed: a receiver could otherwise send us to an
// address the guard never saw in the URL. With the switch off no loopback
// receiver is reachable at all, so this uses the switch (a redirect is
// refused before any address check): the 3xx is a failure and its target
// never gets a request.
func TestARedirectIsAFailureAndNotFollowed(t *testing.T) {
	var followed atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		followed.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(target.Close)
	s := sender(t, outbound.Options{AllowPrivate: true})
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		bounce := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Redirect(w, &http.Request{}, target.URL+"/elsewhere", status)
		}))
		err := send(t, s, bounce.URL+"/hook")
		bounce.Close()
		if err == nil || !regexp.MustCompile(`receiver answered `+strconv.Itoa(status)).MatchString(err.Error()) {
			t.Errorf("a %d redirect: Send = %v; want a failure naming the status", status, err)
		}
	}
	if n := followed.Load(); n != 0 {
		t.Errorf("the redirect target got %d requests; redirects must not be followed", n)
	}
}

// HTTP(S)_PROXY from the environment is not used: a proxy would dial for
// us, past the guard. The switch is on so that a proxy on loopback would
// be reachable if the sender used it; the target is a documentation
// address (TEST-NET-1) the guard refuses even then.
func TestProxiesFromTheEnvironmentAreNotUsed(t *testing.T) {
	proxied, proxyAddr, err := countingListener(t, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"} {
		t.Setenv(name, "http://"+proxyAddr)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	const target = "https://192.0.2.1/hook"

	// Control: a client that honours the environment goes to the proxy.
	// (net/http reads the environment once per process: if something read
	// it before this test, this fails instead of passing for nothing.)
	req, _ := http.NewRequest(http.MethodPost, target, nil)
	if u, err := http.ProxyFromEnvironment(req); err != nil || u == nil || u.Host != proxyAddr {
		t.Fatalf("the environment's proxy for %s is %v, %v; want %s", target, u, err, proxyAddr)
	}
	_, _ = (&http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}}).Do(req)
	if proxied.Load() != 1 {
		t.Fatalf("a client honouring the environment made %d proxy connections, want 1", proxied.Load())
	}

	err = send(t, sender(t, outbound.Options{AllowPrivate: true}), target)
	if !errors.Is(err, application.ErrPermanent) || !regexp.MustCompile(`refused: 192\.0\.2\.1 is a reserved address \(SSRF guard\)$`).MatchString(err.Error()) {
		t.Errorf("Send(%s) with a proxy in the environment = %v; want the guard's refusal, dialled directly", target, err)
	}
	if n := proxied.Load(); n != 1 {
		t.Errorf("the proxy got %d connections from the sender; want none", n-1)
	}
}
