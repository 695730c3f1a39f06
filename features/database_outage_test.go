package features_test

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// tcpProxy forwards loopback connections to a target address, and can cut
// them all and refuse new ones (an unreachable database) and come back on
// the same address.
type tcpProxy struct {
	addr, target string
	mu           sync.Mutex
	listener     net.Listener
	conns        map[net.Conn]bool
}

func startTCPProxy(target string) *tcpProxy {
	GinkgoHelper()
	p := &tcpProxy{target: target, conns: map[net.Conn]bool{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	p.addr = l.Addr().String()
	p.serve(l)
	DeferCleanup(p.Cut)
	return p
}

func (p *tcpProxy) serve(l net.Listener) {
	p.mu.Lock()
	p.listener = l
	p.mu.Unlock()
	go func() {
		for {
			client, err := l.Accept()
			if err != nil {
				return
			}
			go p.forward(client)
		}
	}()
}

func (p *tcpProxy) forward(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	p.mu.Lock()
	p.conns[client], p.conns[server] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(server, client); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, server); done <- struct{}{} }()
	<-done
	client.Close()
	server.Close()
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
}

// Cut closes every forwarded connection and refuses new ones.
func (p *tcpProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listener != nil {
		p.listener.Close()
		p.listener = nil
	}
	for c := range p.conns {
		c.Close()
	}
}

// Restore accepts connections on the same address again.
func (p *tcpProxy) Restore() {
	GinkgoHelper()
	var l net.Listener
	Eventually(func() (err error) { l, err = net.Listen("tcp", p.addr); return err }).
		WithTimeout(5*time.Second).Should(Succeed(), "listen on %s again", p.addr)
	p.serve(l)
}

// viaProxy is databaseURL with its host replaced by the proxy's address.
func viaProxy(databaseURL string, p *tcpProxy) string {
	GinkgoHelper()
	u, err := url.Parse(databaseURL)
	Expect(err).NotTo(HaveOccurred())
	u.Host = p.addr
	return u.String()
}

var _ = Describe("Riding out a database outage", func() {
	It("answers at once with the advice to retry while the database cannot be reached, and accepts again when it returns", func() {
		a := StartFormd()
		lf := a.LiveForm(nil)
		u, err := url.Parse(a.DatabaseURL)
		Expect(err).NotTo(HaveOccurred())
		proxy := startTCPProxy(u.Host)
		metricsAddr := "127.0.0.1:" + freePort()
		b := a.StartTwin("FORMD_DATABASE_URL="+withPoolSize(viaProxy(a.DatabaseURL, proxy), 8), "FORMD_METRICS_ADDR="+metricsAddr)
		post := func(headers ...http.Header) *Response {
			return b.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "during an outage"},
				append([]http.Header{fromExampleCom()}, headers...)...)
		}
		Expect(post().Status).To(Equal(http.StatusOK), "B accepts while its database answers")

		By("cutting B off from its database")
		proxy.Cut()
		Eventually(func() int { return b.Get("", "/readyz").Status }).WithTimeout(5 * time.Second).
			Should(Equal(http.StatusServiceUnavailable))
		Expect(b.Get("", "/healthz").Status).To(Equal(http.StatusOK), "B stays live: it rides out the outage")
		Eventually(func() int { return post().Status }).WithTimeout(5*time.Second).
			Should(Equal(http.StatusInternalServerError), "B knows its database is down")

		By("answering a submission at once, with the spec's error shape, the advice to retry and Retry-After")
		started := time.Now()
		r := post(Header("Idempotency-Key", "outage-"+randomHex(8)))
		Expect(time.Since(started)).To(BeNumerically("<", time.Second), "no request waits out a connection attempt")
		ExpectError(r, http.StatusInternalServerError, "briefly unavailable", "retry with the same key")
		Expect(r.Header.Get("Retry-After")).To(MatchRegexp(`^[1-9][0-9]*$`))

		By("sending a plain HTML post to the hosted error page with a try-again reason")
		page := b.Post("", "/submit", urlencodedBody("access_key", lf.AccessKey, "message", "Hello"),
			fromPage("https://example.com/contact"), htmlNavigation())
		q := expectErrorPageRedirect(page)
		Expect(q.Get("code")).To(Equal("unavailable"))
		Expect(htmlPage(b, page.Header.Get("Location"))).To(ContainSubstring("again in a few seconds"))

		By("answering the control plane alike")
		v1 := b.Get(lf.Token, "/v1/forms")
		ExpectError(v1, http.StatusInternalServerError, "briefly unavailable")
		Expect(v1.Header.Get("Retry-After")).NotTo(BeEmpty())

		By("accepting again, by itself, once the database answers")
		proxy.Restore()
		Eventually(func() int { return post().Status }).WithTimeout(10 * time.Second).Should(Equal(http.StatusOK))
		Expect(b.Get("", "/readyz").Status).To(Equal(http.StatusOK))

		By("having counted the refusals by surface")
		// The metrics listener is no part of the public API: a plain client.
		client := &http.Client{Timeout: 10 * time.Second}
		DeferCleanup(client.CloseIdleConnections)
		resp, err := client.Get("http://" + metricsAddr + "/metrics")
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		Expect(sample(families, "formd_unavailable_refusals_total", "surface", "submit")).To(BeNumerically(">=", 2))
		Expect(sample(families, "formd_unavailable_refusals_total", "surface", "api")).To(BeNumerically(">=", 1))
	})
})
