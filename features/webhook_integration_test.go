package features_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// verifyStandardWebhook is an independent implementation of Standard
// Webhooks verification (standardwebhooks.com), as a receiver writes it
// from the specification: the secret's bytes are the base64 after
// "whsec_"; the signed content is "{webhook-id}.{webhook-timestamp}.{body}";
// the header holds space-separated "v1,<base64 HMAC-SHA256>" entries, any of
// which may match, compared in constant time.
func verifyStandardWebhook(secret string, call webhookCall) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || !strings.HasPrefix(secret, "whsec_") {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(call.Header.Get("webhook-id") + "." + call.Header.Get("webhook-timestamp") + "."))
	mac.Write(call.Body)
	want := mac.Sum(nil)
	for _, entry := range strings.Fields(call.Header.Get("webhook-signature")) {
		version, sig, ok := strings.Cut(entry, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

var _ = Describe("A form's webhook integration", Ordered, func() {
	var f *Formd
	var db *DB
	var receiver *webhookReceiver
	var lf LiveForm
	var secret string

	BeforeAll(func() {
		receiver = startWebhookReceiver()
		f = StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		db = f.OpenDB()
		lf = f.LiveForm(nil)
		r := f.Patch(lf.Token, integrationsPath(lf.ID, "webhook"), map[string]any{"enabled": true, "targetUrl": receiver.URL("/integration")})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		secret = expectStandardWebhooksSecret(r.Object("integration")["secret"])
	})

	// submit posts a submission with routing fields, a captcha token and
	// the honeypot, and waits for the receiver's call for its delivery.
	submit := func(message string) (webhookID, submissionID string, call webhookCall) {
		GinkgoHelper()
		r := f.Post("", "/submit", map[string]any{
			"access_key": lf.AccessKey, "name": "Ada Lovelace", "message": message,
			"botcheck": "", "subject": "Hi", "from_name": "Ada", "h-captcha-response": "token",
		}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Array("webhookDeliveryIds")).To(HaveLen(1))
		webhookID = r.Array("webhookDeliveryIds")[0].(string)
		submissionID = db.AcceptedByRequest(r.RequestID()).StreamID
		var calls []webhookCall
		Eventually(func() []webhookCall {
			calls = nil
			for _, c := range receiver.Calls("/integration") {
				if c.Header.Get("webhook-id") == webhookID {
					calls = append(calls, c)
				}
			}
			return calls
		}).WithTimeout(10 * time.Second).Should(HaveLen(1))
		return webhookID, submissionID, calls[0]
	}

	It("posts every accepted submission once, signed, with the fields and never the reserved ones", func() {
		before := time.Now().Unix()
		webhookID, submissionID, call := submit("Hello")
		Expect(webhookID).To(MatchRegexp(uuidPattern))
		Expect(call.Method).To(Equal(http.MethodPost))
		Expect(call.Header.Get("Content-Type")).To(HavePrefix("application/json"))

		By("carrying the documented body")
		body := call.JSON()
		Expect(body).To(HaveKeyWithValue("type", "submission.accepted"))
		Expect(body).To(HaveKeyWithValue("deliveryId", webhookID))
		Expect(body).To(HaveKeyWithValue("submissionId", submissionID))
		Expect(body).To(HaveKeyWithValue("formId", lf.ID))
		Expect(body).To(HaveKeyWithValue("requestId", Not(BeEmpty())))
		Expect(body).To(HaveKeyWithValue("submittedAt", MatchRegexp(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)))
		submittedAt, err := time.Parse(time.RFC3339, body["submittedAt"].(string))
		Expect(err).NotTo(HaveOccurred())
		Expect(submittedAt).To(BeTemporally("~", time.Now(), time.Minute), "the time it was accepted, not a zero time")
		Expect(body).To(HaveKeyWithValue("data", Equal(map[string]any{"name": "Ada Lovelace", "message": "Hello"})),
			"routing fields, the honeypot and captcha tokens are not forwarded")
		Expect(string(call.Body)).NotTo(ContainSubstring(lf.AccessKey))
		Expect(string(call.Body)).NotTo(ContainSubstring("whsec_"))

		By("being signed per Standard Webhooks with the secret shown at configuration")
		ts, err := strconv.ParseInt(call.Header.Get("webhook-timestamp"), 10, 64)
		Expect(err).NotTo(HaveOccurred(), "webhook-timestamp is unix seconds")
		Expect(ts).To(BeNumerically(">=", before-1))
		Expect(ts).To(BeNumerically("<=", time.Now().Unix()))
		Expect(call.Header.Get("webhook-signature")).To(MatchRegexp(`^v1,[A-Za-z0-9+/]+=*$`))
		Expect(verifyStandardWebhook(secret, call)).To(BeTrue(), "the signature verifies with the form's secret")
		Expect(verifyStandardWebhook(expectStandardWebhooksSecret("whsec_"+base64.StdEncoding.EncodeToString(make([]byte, 32))), call)).
			To(BeFalse(), "the verifier refuses another secret")

		By("showing in the delivery log with the receiver's host as target")
		Eventually(func() string { row, _ := db.Delivery(webhookID); return row.Status }).
			WithTimeout(5 * time.Second).Should(Equal("succeeded"))
		page, _ := deliveriesOf(f, lf.Token, lf.ID, "?kind=webhook")
		entry := deliveryIn(page, webhookID)
		Expect(entry).NotTo(BeNil())
		Expect(entry).To(HaveKeyWithValue("target", "127.0.0.1"))
		Consistently(func() int { return len(receiver.Calls("/integration")) }).WithTimeout(300 * time.Millisecond).Should(Equal(1))
	})

	It("signs with both secrets during the overlap after a rotation", func() {
		r := f.Post(lf.Token, integrationsPath(lf.ID, "webhook")+"/rotate-secret", nil)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		next := expectStandardWebhooksSecret(r.Object("integration")["secret"])
		_, _, call := submit("After the rotation")
		entries := strings.Fields(call.Header.Get("webhook-signature"))
		Expect(entries).To(HaveLen(2), "one signature per valid secret")
		for i, s := range []string{next, secret} {
			one := call
			one.Header = call.Header.Clone()
			one.Header.Set("webhook-signature", entries[i])
			Expect(verifyStandardWebhook(s, one)).To(BeTrue(), "signature %d verifies with its secret", i)
		}
	})

	It("stops delivering once disabled", func() {
		r := f.Patch(lf.Token, integrationsPath(lf.ID, "webhook"), map[string]any{"enabled": false})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		s := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Quiet"}, fromExampleCom())
		Expect(s.Status).To(Equal(http.StatusOK), "%s", s)
		Expect(s.JSON["webhookDeliveryIds"]).To(BeEmpty())
	})

	It("is disabled by a receiver answering 410 Gone, with the system as actor in the audit trail", func() {
		r := f.Patch(lf.Token, integrationsPath(lf.ID, "webhook"), map[string]any{"enabled": true, "targetUrl": receiver.URL("/gone")})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		s := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Anyone there?"}, fromExampleCom())
		Expect(s.Status).To(Equal(http.StatusOK), "%s", s)
		Expect(s.Array("webhookDeliveryIds")).To(HaveLen(1))
		webhookID := s.Array("webhookDeliveryIds")[0].(string)

		By("failing the delivery for good after one attempt")
		Eventually(func() string { row, _ := db.Delivery(webhookID); return row.Status }).
			WithTimeout(10 * time.Second).Should(Equal("failed"))
		Expect(receiver.Calls("/gone")).To(HaveLen(1))

		By("disabling the integration, recorded as the system's change")
		listed := f.Get(lf.Token, integrationsPath(lf.ID))
		Expect(listed.Status).To(Equal(http.StatusOK), "%s", listed)
		Expect(listed.Array("integrations")).To(ContainElement(SatisfyAll(
			HaveKeyWithValue("type", "webhook"), HaveKeyWithValue("enabled", false))))
		events := f.Events(lf.Token, lf.ID)
		last := events[len(events)-1]
		Expect(last).To(HaveKeyWithValue("type", "form.integration_configured.v1"))
		Expect(last["actor"]).To(HaveKeyWithValue("type", "system"))
		Expect(last["changes"]).To(ConsistOf(change("integrations.webhook.enabled", true, false)))

		By("no longer delivering to it")
		next := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Still there?"}, fromExampleCom())
		Expect(next.Status).To(Equal(http.StatusOK), "%s", next)
		Expect(next.JSON["webhookDeliveryIds"]).To(BeEmpty())
	})
})
