package features_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// gtube is the standard test string every spam engine classifies as spam.
const gtube = "XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X"

// testRspamdURL is the suite's rspamd scanner (scripts/ensure-rspamd.sh,
// which make features runs). Its absence fails the spec: classification
// against a real rspamd is no optional part of the suite.
func testRspamdURL() string {
	GinkgoHelper()
	url := os.Getenv("FORMD_TEST_RSPAMD_URL")
	if url == "" {
		Fail("FORMD_TEST_RSPAMD_URL is not set: run the suite with make features, or set the variables scripts/ensure-rspamd.sh prints")
	}
	return url
}

// spamChecksCounted reads formd_spam_checks_total{outcome} off a metrics listener.
func spamChecksCounted(addr, outcome string) func(Gomega) float64 {
	client := &http.Client{Timeout: 10 * time.Second}
	DeferCleanup(client.CloseIdleConnections)
	return func(g Gomega) float64 {
		return sample(scrapeMetrics(g, client, addr), "formd_spam_checks_total", "outcome", outcome)
	}
}

// postMessage submits a message to a live form from https://example.com.
func postMessage(f *Formd, lf LiveForm, message string, headers ...http.Header) *Response {
	GinkgoHelper()
	if len(headers) == 0 {
		headers = []http.Header{fromExampleCom()}
	}
	return f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "email": "ada@example.org", "subject": "Hello",
		"message": message}, headers...)
}

var _ = Describe("Spam classifier (rspamd)", Ordered, func() {
	var f *Formd
	var db *DB
	var receiver *webhookReceiver
	var metricsAddr string

	BeforeAll(func() {
		receiver = startWebhookReceiver()
		metricsAddr = "127.0.0.1:" + freePort()
		f = StartFormd("FORMD_RSPAMD_URL="+testRspamdURL(), "FORMD_METRICS_ADDR="+metricsAddr,
			"FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		db = f.OpenDB()
	})

	It("in reject mode refuses the GTUBE message with 400 and delivers nothing", func() {
		lf := f.LiveForm(spamPolicy("reject", nil))
		r := postMessage(f, lf, "Please read: "+gtube)
		ExpectError(r, http.StatusBadRequest, msgSpamContent)
		expectNothingQueued(f, db, lf.ID, lf.Recipient, 1)
		Eventually(spamChecksCounted(metricsAddr, "spam")).Should(BeNumerically(">=", 1))
	})

	It("in tag mode delivers the GTUBE message marked, with rspamd's reasons in the webhook's spam object; a normal message unmarked", func() {
		lf := f.LiveForm(spamPolicy("tag", nil))
		r := f.Patch(lf.Token, integrationsPath(lf.ID, "webhook"), map[string]any{"enabled": true, "targetUrl": receiver.URL("/classified")})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)

		r = postMessage(f, lf, "Please read: "+gtube)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(f.Mail.WaitForMail(lf.Recipient).Subject).To(Equal("[SPAM] Hello"))
		Eventually(func() []webhookCall { return receiver.Calls("/classified") }).WithTimeout(15 * time.Second).Should(HaveLen(1))
		spam := receiver.Calls("/classified")[0].JSON()["spam"]
		Expect(spam).To(HaveKeyWithValue("verdict", "spam"))
		Expect(spam).To(HaveKeyWithValue("reasons", ContainElement(ContainSubstring("GTUBE"))))

		By("a normal message is classified and delivered as it is")
		r = postMessage(f, lf, "I would like a quote for a new garden fence, about twenty metres. Thank you, Ada")
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		d := f.Get(lf.Token, "/v1/deliveries/"+r.JSON["deliveryId"].(string))
		Expect(d.Status).To(Equal(http.StatusOK), "%s", d)
		Expect(d.Array("events")[0]).To(HaveKeyWithValue("spamCheck", "checked"))
		Expect(f.Mail.WaitForMail(lf.Recipient).Subject).To(Equal("Hello"))
		Eventually(func() []webhookCall { return receiver.Calls("/classified") }).WithTimeout(15 * time.Second).Should(HaveLen(2))
		Expect(receiver.Calls("/classified")[1].JSON()).NotTo(HaveKey("spam"))
		Eventually(spamChecksCounted(metricsAddr, "ham")).Should(BeNumerically(">=", 1))
	})

	It("shows the classifier's score and reasons in the dry run's gate trace", func() {
		lf := f.LiveForm(spamPolicy("reject", nil))
		r := postMessage(f, lf, gtube, dryRunHeader("true"))
		Expect(r.Status).To(Equal(http.StatusBadRequest), "%s", r)
		Expect(gateMessage(r, "spam")).To(And(ContainSubstring("classifier spam, score "), ContainSubstring("GTUBE")))

		r = postMessage(f, lf, "Hello, is the shop open on Sunday?", dryRunHeader("true"))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(gateMessage(r, "spam")).To(ContainSubstring("classifier not spam, score "))
	})
})

var _ = Describe("Spam classifier unavailable", func() {
	// expectFailOpen submits the GTUBE message to a reject-mode form of a
	// formd whose classifier cannot answer: it is accepted and delivered
	// untagged, and the metric counts the check unavailable.
	expectFailOpen := func(rspamdURL string, env ...string) {
		GinkgoHelper()
		metricsAddr := "127.0.0.1:" + freePort()
		f := StartFormd(append([]string{"FORMD_RSPAMD_URL=" + rspamdURL, "FORMD_METRICS_ADDR=" + metricsAddr}, env...)...)
		lf := f.LiveForm(spamPolicy("reject", nil))

		r := postMessage(f, lf, gtube, dryRunHeader("true"))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(gateMessage(r, "spam")).To(ContainSubstring("spam check unavailable"))

		r = postMessage(f, lf, gtube)
		Expect(r.Status).To(Equal(http.StatusOK), "a classifier outage never loses a submission: %s", r)
		Expect(f.Mail.WaitForMail(lf.Recipient).Subject).To(Equal("Hello"), "delivered untagged")
		Eventually(spamChecksCounted(metricsAddr, "unavailable")).Should(BeNumerically("==", 2))

		By("the delivery log says the spam check was unavailable, in the API and the dashboard")
		id := r.JSON["deliveryId"].(string)
		d := f.Get(lf.Token, "/v1/deliveries/"+id)
		Expect(d.Status).To(Equal(http.StatusOK), "%s", d)
		Expect(d.Array("events")[0]).To(HaveKeyWithValue("spamCheck", "unavailable"))
		Expect(d.Object("delivery")).To(HaveKeyWithValue("spamCheck", "unavailable"))
		list := f.Get(lf.Token, "/v1/forms/"+lf.ID+"/deliveries")
		Expect(list.Status).To(Equal(http.StatusOK), "%s", list)
		Expect(list.Array("deliveries")).To(ContainElement(SatisfyAll(HaveKeyWithValue("id", id), HaveKeyWithValue("spamCheck", "unavailable"))))
		dashboard := newDashboardClient(f, lf.Token)
		for _, path := range []string{"/deliveries/" + id, "/deliveries"} {
			page := dashboard.get("/dashboard/forms/" + lf.ID + path)
			Expect(page.StatusCode).To(Equal(http.StatusOK))
			Expect(readBody(page)).To(ContainSubstring("spam check unavailable"), path)
		}
	}

	It("accepts and delivers untagged when rspamd does not listen", func() {
		expectFailOpen("http://127.0.0.1:" + freePort())
	})

	It("accepts and delivers untagged when rspamd does not answer within its timeout", func() {
		stop := make(chan struct{})
		stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-stop:
			}
		}))
		DeferCleanup(func() { close(stop); stalled.Close() })
		expectFailOpen(stalled.URL, "FORMD_RSPAMD_TIMEOUT=500ms")
	})
})
