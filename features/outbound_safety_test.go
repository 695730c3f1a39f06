package features_test

import (
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// countConnections listens on a free loopback port until the spec ends and
// counts the connections it gets, closing each.
func countConnections() (port string, dialled *atomic.Int32) {
	GinkgoHelper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(listener.Close)
	dialled = new(atomic.Int32)
	go func() {
		for {
			c, err := listener.Accept()
			if err != nil {
				return
			}
			dialled.Add(1)
			_ = c.Close()
		}
	}()
	_, port, _ = net.SplitHostPort(listener.Addr().String())
	return port, dialled
}

var _ = Describe("Outbound integration calls (issue 10)", func() {
	Describe("to an internal address, with FORMD_WEBHOOK_ALLOW_PRIVATE off", func() {
		DescribeTable("fail for good after one attempt, saying why, and never connect",
			func(target, says string) {
				f := shared // started without FORMD_WEBHOOK_ALLOW_PRIVATE
				db := f.OpenDB()
				port, dialled := countConnections()
				target, says = strings.ReplaceAll(target, "{port}", port), strings.ReplaceAll(says, "{port}", port)
				lf := f.LiveForm(nil)
				r := f.Patch(lf.Token, integrationsPath(lf.ID, "webhook"), map[string]any{"enabled": true, "targetUrl": target})
				Expect(r.Status).To(Equal(http.StatusOK), "%s", r)

				s := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hello"}, fromExampleCom())
				Expect(s.Status).To(Equal(http.StatusOK), "%s", s)
				Expect(s.Array("webhookDeliveryIds")).To(HaveLen(1))
				webhookID := s.Array("webhookDeliveryIds")[0].(string)

				Eventually(func() string { row, _ := db.Delivery(webhookID); return row.Status }).
					WithTimeout(10 * time.Second).Should(Equal("failed"))
				row, _ := db.Delivery(webhookID)
				Expect(row.Attempts).To(Equal(1), "a refused address stays refused: no retries")
				Expect(row.LastError).To(MatchRegexp(says))

				By("the delivery log showing the one failed attempt and its reason, without the URL's path")
				d := f.Get(lf.Token, "/v1/deliveries/"+webhookID)
				Expect(d.Status).To(Equal(http.StatusOK), "%s", d)
				Expect(d.Object("delivery")).To(HaveKeyWithValue("state", "failed"))
				Expect(eventTypes(d)).To(Equal([]string{"submission.accepted.v1", "delivery.failed.v1"}))
				failed := d.Array("events")[1].(map[string]any)
				Expect(failed).To(HaveKeyWithValue("attempt", BeNumerically("==", 1)))
				Expect(failed).To(HaveKeyWithValue("error", MatchRegexp(says)))
				Expect(string(d.Body)).NotTo(ContainSubstring("/hook"))

				Expect(dialled.Load()).To(BeZero(), "the guard refuses before connecting")
			},
			Entry("loopback on the listener's port", "https://127.0.0.1:{port}/hook",
				`refused: port {port} is not allowed, only 80 and 443 \(SSRF guard\)$`),
			Entry("loopback", "https://127.0.0.1/hook",
				`refused: 127\.0\.0\.1 is a loopback address \(SSRF guard\)$`),
			Entry("a name resolving to loopback (checked after DNS)", "https://localhost/hook",
				`refused: localhost is (127\.0\.0\.1|::1), a loopback address \(SSRF guard\)$`),
			Entry("IPv4-mapped loopback", "https://[::ffff:127.0.0.1]/hook",
				`refused: ::ffff:127\.0\.0\.1 is IPv4-mapped 127\.0\.0\.1, a loopback address \(SSRF guard\)$`),
			Entry("cloud metadata", "https://169.254.169.254/hook",
				`refused: 169\.254\.169\.254 is a link-local address \(cloud metadata\) \(SSRF guard\)$`),
			Entry("RFC 1918", "https://10.0.0.1/hook",
				`refused: 10\.0\.0\.1 is a private \(RFC 1918\) address \(SSRF guard\)$`),
		)

		DescribeTable("are refused at configuration when the host is IPv4 written in another form than dotted decimal",
			func(target string) {
				lf := shared.LiveForm(nil)
				ExpectError(shared.Patch(lf.Token, integrationsPath(lf.ID, "webhook"), map[string]any{"enabled": true, "targetUrl": target}),
					http.StatusBadRequest, "targetUrl")
			},
			Entry("one decimal number", "https://2130706433/hook"),
			Entry("octal", "https://0177.0.0.1/hook"),
			Entry("hexadecimal", "https://0x7f.1/hook"),
			Entry("shortened", "https://127.1/hook"),
		)
	})

	It("retries a receiver answering 503 no earlier than its Retry-After, then succeeds", func() {
		receiver := startWebhookReceiver()
		f := StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		db := f.OpenDB()
		lf := f.LiveForm(nil)
		r := f.Patch(lf.Token, integrationsPath(lf.ID, "webhook"), map[string]any{"enabled": true, "targetUrl": receiver.URL("/busy")})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		s := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Busy?"}, fromExampleCom())
		Expect(s.Status).To(Equal(http.StatusOK), "%s", s)
		webhookID := s.Array("webhookDeliveryIds")[0].(string)
		asked := regexp.QuoteMeta(fmt.Sprintf("receiver answered 503; it asked to retry after %d s", busyRetryAfter))

		By("the first attempt failing with the receiver's wait recorded")
		Eventually(func(g Gomega) {
			row, _ := db.Delivery(webhookID)
			g.Expect(row.Status).To(Equal("retrying"))
			g.Expect(row.Attempts).To(Equal(1))
			g.Expect(row.LastError).To(MatchRegexp(asked))
		}).WithTimeout(10 * time.Second).Should(Succeed())

		By("the second attempt succeeding, no earlier than the receiver asked")
		Eventually(func() string { row, _ := db.Delivery(webhookID); return row.Status }).
			WithTimeout(time.Duration(busyRetryAfter+8) * time.Second).Should(Equal("succeeded"))
		calls := receiver.Calls("/busy")
		Expect(calls).To(HaveLen(2))
		Expect(calls[1].At.Sub(calls[0].At)).To(BeNumerically(">=", time.Duration(busyRetryAfter)*time.Second),
			"the schedule alone would retry within 6 s")

		By("the delivery log showing both attempts")
		d := f.Get(lf.Token, "/v1/deliveries/"+webhookID)
		Expect(d.Status).To(Equal(http.StatusOK), "%s", d)
		Expect(d.Object("delivery")).To(HaveKeyWithValue("attempts", BeNumerically("==", 2)))
		Expect(eventTypes(d)).To(Equal([]string{"submission.accepted.v1", "delivery.attempt_failed.v1", "delivery.succeeded.v1"}))
		first := d.Array("events")[1].(map[string]any)
		Expect(first).To(HaveKeyWithValue("attempt", BeNumerically("==", 1)))
		Expect(first).To(HaveKeyWithValue("error", MatchRegexp(asked)))
		failedAt, err := time.Parse(time.RFC3339Nano, first["recordedAt"].(string))
		Expect(err).NotTo(HaveOccurred())
		next, err := time.Parse(time.RFC3339Nano, first["nextAttemptAt"].(string))
		Expect(err).NotTo(HaveOccurred())
		Expect(next.Sub(failedAt)).To(BeNumerically("~", time.Duration(busyRetryAfter)*time.Second, time.Second))
		Expect(d.Array("events")[2].(map[string]any)).To(HaveKeyWithValue("attempt", BeNumerically("==", 2)))
	})
})
