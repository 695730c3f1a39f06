package features_test

// Deploying formd behind nginx: docs/deploy/nginx.conf in front of a formd
// configured with the env example's FORMD_TRUSTED_PROXIES, so that formd's
// per-IP limits count each client rather than the proxy, and a client cannot
// choose its address with X-Forwarded-For.

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

var _ = Describe("Deploy files behind nginx", func() {
	It("limits each client by its own address, whatever X-Forwarded-For it sends", func() {
		tool := lookTool("nginx")
		proxies := regexp.MustCompile(`(?m)^FORMD_TRUSTED_PROXIES=\S+$`).FindString(readRepositoryFile("docs/deploy/formd.env.example"))
		Expect(proxies).NotTo(BeEmpty())
		f := StartFormd(proxies, "FORMD_SUBMIT_RATE=0.001", "FORMD_SUBMIT_BURST=1")

		By("starting nginx with the example server, on loopback ports, forwarding to this formd")
		address := startExampleNginx(tool, strings.TrimPrefix(f.URL, "http://"))

		post := func(from, forwardedFor string) int {
			GinkgoHelper()
			client := clientFrom(from)
			req, err := http.NewRequest(http.MethodPost, "https://"+address+"/submit",
				strings.NewReader(`{"access_key":"00000000-0000-4000-8000-000000000000","email":"a@example.com"}`))
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Content-Type", "application/json")
			if forwardedFor != "" {
				req.Header.Set("X-Forwarded-For", forwardedFor)
			}
			resp, err := client.Do(req)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			return resp.StatusCode
		}

		Expect(post("127.0.0.2", "")).NotTo(Equal(http.StatusTooManyRequests), "a client's first post")
		Expect(post("127.0.0.2", "203.0.113.7")).To(Equal(http.StatusTooManyRequests),
			"the same client, although it claims another address")
		Expect(post("127.0.0.3", "")).NotTo(Equal(http.StatusTooManyRequests),
			"another client has a bucket of its own, not the proxy's")
	})
})

// startExampleNginx runs docs/deploy/nginx.conf in front of upstream, with
// a self-signed certificate and loopback ports, and returns its HTTPS address.
func startExampleNginx(tool, upstream string) string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	cert, key := writeSelfSignedCertificate(dir)
	https, plain := "127.0.0.1:"+freePort(), "127.0.0.1:"+freePort()
	text := readRepositoryFile("docs/deploy/nginx.conf")
	for old, replacement := range map[string]string{
		"server 127.0.0.1:8080;":     "server " + upstream + ";",
		"listen 443 ssl http2;":      "listen " + https + " ssl http2;",
		"listen 80;":                 "listen " + plain + ";",
		"listen [::]:443 ssl http2;": "",
		"listen [::]:80;":            "",
		"/etc/letsencrypt/live/forms.example.com/fullchain.pem": cert,
		"/etc/letsencrypt/live/forms.example.com/privkey.pem":   key,
	} {
		Expect(text).To(ContainSubstring(old))
		text = strings.ReplaceAll(text, old, replacement)
	}
	Expect(os.WriteFile(filepath.Join(dir, "formd.conf"), []byte(text), 0o644)).To(Succeed())
	main := "pid " + dir + "/nginx.pid;\nerror_log " + dir + "/error.log;\ndaemon off;\nevents {}\n" +
		"http {\n    access_log off;\n    include " + dir + "/formd.conf;\n}\n"
	Expect(os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644)).To(Succeed())
	session, err := gexec.Start(exec.Command(tool, "-c", dir+"/nginx.conf", "-e", dir+"/error.log"), GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		session.Terminate()
		if !waitExit(session, 10*time.Second) {
			session.Kill()
		}
	})
	Eventually(func() error {
		c, err := net.DialTimeout("tcp", https, 100*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err
	}).WithTimeout(10*time.Second).WithPolling(20*time.Millisecond).Should(Succeed(), "nginx listens")
	return https
}

// clientFrom is an HTTPS client whose connections come from the loopback
// address from, and which trusts the test's self-signed certificate.
func clientFrom(from string) *http.Client {
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	transport := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, addr)
		},
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // the test's own certificate, on loopback
	}
	DeferCleanup(transport.CloseIdleConnections)
	return &http.Client{Transport: transport, Timeout: 15 * time.Second}
}
