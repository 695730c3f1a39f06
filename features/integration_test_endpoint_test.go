package features_test

import (
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Testing a form's integration", Ordered, func() {
	var f *Formd
	var receiver *webhookReceiver
	var lf LiveForm
	var secret string

	BeforeAll(func() {
		receiver = startWebhookReceiver()
		f = StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		lf = f.LiveForm(map[string]any{"name": "Contact"})
		r := f.Patch(lf.Token, integrationsPath(lf.ID, "webhook"), map[string]any{"enabled": true, "targetUrl": receiver.URL("/hook")})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		secret = expectStandardWebhooksSecret(r.Object("integration")["secret"])
		// Disabled: an owner checks an integration before turning it on.
		r = f.Patch(lf.Token, integrationsPath(lf.ID, "slack"), map[string]any{"enabled": false, "targetUrl": receiver.URL("/slack")})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	})

	// test queues a test of typ and waits until its delivery succeeded in
	// the delivery log; it returns the delivery's id.
	test := func(typ string) string {
		GinkgoHelper()
		r := f.Post(lf.Token, integrationsPath(lf.ID, typ)+"/test", nil)
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
		d := r.Object("delivery")
		Expect(d).To(HaveKeyWithValue("id", MatchRegexp(uuidPattern)))
		Expect(d).To(HaveKeyWithValue("kind", typ))
		Expect(d).To(HaveKeyWithValue("state", "queued"))
		id := d["id"].(string)
		Eventually(func() any {
			got := f.Get(lf.Token, "/v1/deliveries/"+id)
			if got.Status != http.StatusOK {
				return got.Status
			}
			return got.Object("delivery")["state"]
		}).WithTimeout(10*time.Second).Should(Equal("succeeded"), "the test's outcome shows in the delivery log")
		return id
	}

	It("posts one signed webhook marked as a test, with the sample message and no submission", func() {
		id := test("webhook")
		Eventually(func() int { return len(receiver.Calls("/hook")) }).WithTimeout(5 * time.Second).Should(Equal(1))
		call := receiver.Calls("/hook")[0]
		Expect(call.Header.Get("webhook-id")).To(Equal(id))
		Expect(verifyStandardWebhook(secret, call)).To(BeTrue(), "signed with the form's secret like any delivery")
		body := call.JSON()
		Expect(body).To(HaveKeyWithValue("test", true))
		Expect(body).To(HaveKeyWithValue("deliveryId", id))
		Expect(body).To(HaveKeyWithValue("formId", lf.ID))
		Expect(body).To(HaveKeyWithValue("submissionId", ""))
		Expect(body).To(HaveKeyWithValue("data", Equal(map[string]any{"message": "This is a test from formd"})))
		Consistently(func() int { return len(receiver.Calls("/hook")) }).WithTimeout(300 * time.Millisecond).Should(Equal(1))
	})

	It("posts a Slack message saying it is a test, even while the integration is disabled", func() {
		test("slack")
		Eventually(func() int { return len(receiver.Calls("/slack")) }).WithTimeout(5 * time.Second).Should(Equal(1))
		Expect(receiver.Calls("/slack")[0].JSON()).To(Equal(map[string]any{"text": "New submission to Contact\nmessage: This is a test from formd"}))
	})

	It("refuses an integration that is not configured, and an unknown type", func() {
		ExpectError(f.Post(lf.Token, integrationsPath(lf.ID, "discord")+"/test", nil), http.StatusBadRequest, "discord")
		ExpectError(f.Post(lf.Token, integrationsPath(lf.ID, "fax")+"/test", nil), http.StatusBadRequest)
		Consistently(func() int { return len(receiver.Calls("/discord")) }).WithTimeout(300 * time.Millisecond).Should(BeZero())
	})

	It("keeps another account out", func() {
		other, _ := f.RegisteredVerifiedUser()
		ExpectError(f.Post(other, integrationsPath(lf.ID, "webhook")+"/test", nil), http.StatusNotFound)
		Consistently(func() int { return len(receiver.Calls("/hook")) }).WithTimeout(300 * time.Millisecond).Should(Equal(1))
	})
})
