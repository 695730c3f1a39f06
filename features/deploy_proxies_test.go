package features_test

// Deploying formd behind a reverse proxy: the Caddy and nginx examples pass
// their tools' own checks and let formd's largest post through, and nginx's,
// in front of a formd configured with the env example's FORMD_TRUSTED_PROXIES,
// has formd's per-IP limits count each client rather than the proxy, while a
// client cannot choose its address with X-Forwarded-For.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/formd/formd/ports/httpapi"
)

var _ = Describe("Deploy files: the reverse proxies", func() {
	It("passes nginx -t with the nginx server, which lets formd's largest post through to it", func() {
		text := readRepositoryFile("docs/deploy/nginx.conf")
		limit := regexp.MustCompile(`(?m)^\s*client_max_body_size (\d+)m;$`).FindStringSubmatch(text)
		Expect(limit).NotTo(BeNil())
		mib, _ := strconv.Atoi(limit[1])
		Expect(mib << 20).To(BeNumerically(">=", httpapi.MaxMultipartBytes))
		Expect(text).To(ContainSubstring("server " + exampleListenAddr() + ";"))
		Expect(text).To(ContainSubstring("proxy_set_header X-Forwarded-For $remote_addr;"))

		tool := lookTool("nginx")
		config, errorLog := writeExampleNginx(nil)
		out, err := exec.Command(tool, "-t", "-c", config, "-e", errorLog).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).NotTo(ContainSubstring("[warn]"))
	})

	It("adapts the Caddyfile, which lets formd's largest post through to it", func() {
		tool := lookTool("caddy")
		config := filepath.Join(repositoryRoot(), "docs", "deploy", "Caddyfile")
		cmd := exec.Command(tool, "adapt", "--config", config, "--adapter", "caddyfile")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		Expect(err).NotTo(HaveOccurred(), stderr.String())
		Expect(stderr.String()).NotTo(ContainSubstring(`"level":"warn"`), "caddy fmt the Caddyfile")
		var adapted any
		Expect(json.Unmarshal(out, &adapted)).To(Succeed())
		Expect(valuesOf(adapted, "max_size")).To(ConsistOf(BeNumerically(">=", httpapi.MaxMultipartBytes)))
		Expect(valuesOf(adapted, "dial")).To(ConsistOf(exampleListenAddr()))
	})

	It("has nginx keep clients apart for formd's limits, whatever X-Forwarded-For it sends", func() {
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

// startExampleNginx runs docs/deploy/nginx.conf in front of upstream, on
// loopback ports, and returns its HTTPS address.
func startExampleNginx(tool, upstream string) string {
	GinkgoHelper()
	https, plain := "127.0.0.1:"+freePort(), "127.0.0.1:"+freePort()
	config, errorLog := writeExampleNginx(map[string]string{
		"server 127.0.0.1:8080;":     "server " + upstream + ";",
		"listen 443 ssl http2;":      "listen " + https + " ssl http2;",
		"listen 80;":                 "listen " + plain + ";",
		"listen [::]:443 ssl http2;": "",
		"listen [::]:80;":            "",
	})
	session, err := gexec.Start(exec.Command(tool, "-c", config, "-e", errorLog, "-g", "daemon off;"), GinkgoWriter, GinkgoWriter)
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

// writeExampleNginx writes a main nginx configuration that includes
// docs/deploy/nginx.conf with a self-signed certificate in place of
// certbot's and the replacements given, and returns its path and its error log.
func writeExampleNginx(replacements map[string]string) (config, errorLog string) {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	cert, key := writeSelfSignedCertificate(dir)
	text := readRepositoryFile("docs/deploy/nginx.conf")
	for old, replacement := range replacements {
		Expect(text).To(ContainSubstring(old))
		text = strings.ReplaceAll(text, old, replacement)
	}
	text = strings.ReplaceAll(text, "/etc/letsencrypt/live/forms.example.com/fullchain.pem", cert)
	text = strings.ReplaceAll(text, "/etc/letsencrypt/live/forms.example.com/privkey.pem", key)
	Expect(os.WriteFile(filepath.Join(dir, "formd.conf"), []byte(text), 0o644)).To(Succeed())
	config, errorLog = filepath.Join(dir, "nginx.conf"), filepath.Join(dir, "error.log")
	main := "pid " + dir + "/nginx.pid;\nerror_log " + errorLog + ";\nevents {}\n" +
		"http {\n    access_log off;\n    include " + dir + "/formd.conf;\n}\n"
	Expect(os.WriteFile(config, []byte(main), 0o644)).To(Succeed())
	return config, errorLog
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

// writeSelfSignedCertificate writes a certificate and key nginx can load.
func writeSelfSignedCertificate(dir string) (cert, key string) {
	GinkgoHelper()
	private, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	template := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "forms.example.com"},
		DNSNames: []string{"forms.example.com"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &private.PublicKey, private)
	Expect(err).NotTo(HaveOccurred())
	keyDER, err := x509.MarshalPKCS8PrivateKey(private)
	Expect(err).NotTo(HaveOccurred())
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	Expect(os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)).To(Succeed())
	Expect(os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)).To(Succeed())
	return cert, key
}

// valuesOf collects every value under key anywhere in a decoded JSON document.
func valuesOf(document any, key string) []any {
	var out []any
	switch v := document.(type) {
	case map[string]any:
		for k, child := range v {
			if k == key {
				out = append(out, child)
			}
			out = append(out, valuesOf(child, key)...)
		}
	case []any:
		for _, child := range v {
			out = append(out, valuesOf(child, key)...)
		}
	}
	return out
}
