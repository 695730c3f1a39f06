package features_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// testInbox reads a form's test inbox (GET /v1/forms/{formId}/test-inbox,
// expecting 200) with an optional query.
func (f *Formd) testInbox(token, formID, query string) []map[string]any {
	GinkgoHelper()
	r := f.Get(token, "/v1/forms/"+formID+"/test-inbox"+query)
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	var out []map[string]any
	for _, s := range r.Array("submissions") {
		out = append(out, s.(map[string]any))
	}
	return out
}

// rendering is the delivery of kind among a test submission's renderings.
func rendering(submission map[string]any, kind string) map[string]any {
	GinkgoHelper()
	for _, d := range submission["deliveries"].([]any) {
		if d := d.(map[string]any); d["kind"] == kind {
			return d
		}
	}
	Fail("no " + kind + " rendering in " + jsonOf(submission))
	return nil
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// asWebhookCall makes a rendered request checkable like a received one.
func asWebhookCall(request map[string]any) webhookCall {
	GinkgoHelper()
	h := http.Header{}
	for k, v := range request["headers"].(map[string]any) {
		h.Set(k, v.(string))
	}
	return webhookCall{Method: request["method"].(string), Header: h, Body: []byte(request["body"].(string))}
}

var _ = Describe("Test submissions and the test inbox", func() {
	It("judges a test submission like a live one, sends nothing, and shows exactly what it would have sent", func() {
		receiver := startWebhookReceiver()
		f := StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		lf := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"}, "subjectDefault": "New lead from the website",
			"replyToMode": "submitter", "autoresponder": map[string]any{"enabled": true, "subject": "Thanks for writing", "message": "We answer within a day."}})
		r := f.Patch(lf.Token, "/v1/forms/"+lf.ID+"/integrations/webhook", map[string]any{"enabled": true, "targetUrl": receiver.URL("/leads")})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		secret := r.Object("integration")["secret"].(string)
		tester := f.TokenWith(lf.Token, lf.Form["workspaceId"].(string), "submissions:test")
		notificationsBefore := len(f.Mail.To(lf.Recipient))
		visitor := UniqueEmail("visitor")
		post := map[string]any{"access_key": lf.AccessKey, "name": "Ada", "email": visitor, "message": "Please call me back"}

		By("a test submission answers like a live one, marked test")
		r = f.Post(tester.Secret, "/submit", post, fromExampleCom(), Header("X-Service-Test", "true"), Header("Idempotency-Key", "suite-run-1"))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.JSON).To(HaveKeyWithValue("success", true))
		Expect(r.JSON).To(HaveKeyWithValue("test", true))
		Expect(r.JSON).To(HaveKeyWithValue("message", "Email sent successfully!"))

		By("the test inbox shows the notification, the autoresponder and the webhook request, marked test and unsigned")
		inbox := f.testInbox(tester.Secret, lf.ID, "?idempotencyKey=suite-run-1")
		Expect(inbox).To(HaveLen(1))
		got := inbox[0]
		Expect(got).To(HaveKeyWithValue("requestId", r.RequestID()))
		Expect(got).To(HaveKeyWithValue("response", HaveKeyWithValue("deliveryId", r.JSON["deliveryId"])))
		mail := rendering(got, "notification")["email"].(map[string]any)
		Expect(mail).To(HaveKeyWithValue("to", lf.Recipient))
		Expect(mail).To(HaveKeyWithValue("subject", "New lead from the website"))
		Expect(mail).To(HaveKeyWithValue("replyTo", visitor))
		Expect(mail).To(HaveKeyWithValue("html", ContainSubstring("<table")), "the default HTML notification")
		Expect(mail["text"]).To(And(ContainSubstring("name: Ada"), ContainSubstring("message: Please call me back")))
		auto := rendering(got, "autoresponder")["email"].(map[string]any)
		Expect(auto).To(HaveKeyWithValue("to", visitor))
		Expect(auto).To(HaveKeyWithValue("subject", "Thanks for writing"))
		request := rendering(got, "webhook")["request"].(map[string]any)
		Expect(request).To(HaveKeyWithValue("url", strings.TrimSuffix(receiver.URL("/leads"), "/leads")+"/…"), "the URL masked")
		Expect(asWebhookCall(request).JSON()).To(HaveKeyWithValue("data", HaveKeyWithValue("message", "Please call me back")))
		Expect(asWebhookCall(request).JSON()).To(HaveKeyWithValue("test", true), "a rendering says it is a test")
		Expect(request["headers"]).To(HaveKeyWithValue("webhook-signature", "v1,<redacted>"))
		Expect(verifyStandardWebhook(secret, asWebhookCall(request))).To(BeFalse(), "a test never yields a signature that verifies")
		Expect(jsonOf(got)).NotTo(ContainSubstring(strings.TrimPrefix(secret, "whsec_")))

		By("a live submission's webhook carries the same headers the rendering shows")
		live := f.Post("", "/submit", post, fromExampleCom())
		Expect(live.Status).To(Equal(http.StatusOK), "%s", live)
		Eventually(func() []webhookCall { return receiver.Calls("/leads") }).WithTimeout(15 * time.Second).Should(HaveLen(1))
		sent := receiver.Calls("/leads")[0]
		Expect(verifyStandardWebhook(secret, sent)).To(BeTrue(), "the live webhook is signed")
		Expect(sent.JSON()).NotTo(HaveKey("test"))
		for name := range request["headers"].(map[string]any) {
			Expect(sent.Header.Get(name)).NotTo(BeEmpty(), "the live request has %s too", name)
		}
		Expect(sent.Header.Get("Content-Type")).To(Equal(request["headers"].(map[string]any)["Content-Type"]))
		Expect(sent.Header.Get("User-Agent")).To(Equal(request["headers"].(map[string]any)["User-Agent"]))

		By("the test sent nothing: one notification (the live one's), one webhook call, and the quota counts one")
		Eventually(func() []Mail { return f.Mail.To(lf.Recipient) }).WithTimeout(15 * time.Second).Should(HaveLen(notificationsBefore + 1))
		// The autoresponder is a delivery of its own: it may land after the notification.
		Eventually(func() int { return len(f.Mail.To(visitor)) }).WithTimeout(MailTimeout).Should(Equal(1), "the live autoresponder")
		Consistently(func() int { return len(f.Mail.To(visitor)) }).WithTimeout(time.Second).Should(Equal(1), "only the live autoresponder")
		Expect(receiver.Calls("/leads")).To(HaveLen(1))
		Expect(usageOf(f.Account(lf.Token))).To(HaveKeyWithValue("used", 1.0))
		db := f.OpenDB()
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(1), "only the live one is an event")
		Expect(db.TablesHolding("Please call me back")).To(BeEmpty(), "test renderings are sealed")

		By("an unverified recipient refuses a test as it would a live post, so a suite catches it")
		unverified, key := f.CreateForm(lf.Token, contactForm(map[string]any{"allowedDomains": []string{"example.com"}}))
		r = f.Post(tester.Secret, "/submit", map[string]any{"access_key": key, "message": "Hi"}, fromExampleCom(), Header("X-Service-Test", "true"))
		Expect(r.Status).To(Equal(http.StatusBadRequest), "%s", r)
		Expect(r.JSON["message"]).To(ContainSubstring("not verified"))
		Expect(f.testInbox(tester.Secret, unverified["id"].(string), "")).To(BeEmpty())

		By("filtering by request id, and emptying the inbox")
		Expect(f.testInbox(tester.Secret, lf.ID, "?requestId="+got["requestId"].(string))).To(HaveLen(1))
		Expect(f.testInbox(tester.Secret, lf.ID, "?requestId=req_nothing_like_it")).To(BeEmpty())
		Expect(f.Get(tester.Secret, "/v1/forms/"+lf.ID+"/test-inbox?limit=101").Status).To(Equal(http.StatusBadRequest))
		cleared := f.Do(http.MethodDelete, "/v1/forms/"+lf.ID+"/test-inbox", nil, Bearer(tester.Secret))
		Expect(cleared.Status).To(Equal(http.StatusOK), "%s", cleared)
		Expect(cleared.JSON).To(HaveKeyWithValue("deleted", 1.0))
		Expect(f.testInbox(tester.Secret, lf.ID, "")).To(BeEmpty())
	})

	It("refuses X-Service-Test without a credential that may test the form, and never falls back to a live post", func() {
		f := shared
		lf := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"}})
		workspace := lf.Form["workspaceId"].(string)
		before := len(f.Mail.To(lf.Recipient))
		post := map[string]any{"access_key": lf.AccessKey, "message": "marker-test-refusals"}
		test := Header("X-Service-Test", "true")

		r := f.Post("", "/submit", post, fromExampleCom(), test)
		Expect(r.Status).To(Equal(http.StatusUnauthorized), "%s", r)
		Expect(r.JSON["message"]).To(ContainSubstring("submissions:test"))
		Expect(r.Header.Get("WWW-Authenticate")).To(Equal("Bearer"))
		Expect(f.Post("fdw_not_a_token", "/submit", post, fromExampleCom(), test).Status).To(Equal(http.StatusUnauthorized))
		writer := f.TokenWith(lf.Token, workspace, "forms:read", "forms:write")
		Expect(f.Post(writer.Secret, "/submit", post, fromExampleCom(), test).Status).To(Equal(http.StatusForbidden))
		stranger, _ := f.RegisteredVerifiedUser()
		Expect(f.Post(stranger, "/submit", post, fromExampleCom(), test).Status).To(Equal(http.StatusForbidden))
		Expect(f.Post(lf.Token, "/submit", post, fromExampleCom(), Header("X-Service-Test", "maybe")).Status).To(Equal(http.StatusBadRequest))

		By("the owner's session may test; a stranger cannot read the inbox")
		Expect(f.Post(lf.Token, "/submit", post, fromExampleCom(), test).Status).To(Equal(http.StatusOK))
		Expect(f.testInbox(lf.Token, lf.ID, "")).To(HaveLen(1))
		Expect(f.Get(stranger, "/v1/forms/"+lf.ID+"/test-inbox").Status).To(Equal(http.StatusNotFound))
		Expect(f.Get(writer.Secret, "/v1/forms/"+lf.ID+"/test-inbox").Status).To(Equal(http.StatusForbidden))
		Consistently(func() int { return len(f.Mail.To(lf.Recipient)) }).WithTimeout(time.Second).Should(Equal(before), "nothing was sent")
	})

	It("shreds test renderings after FORMD_TEST_INBOX_RETENTION", func() {
		f := StartFormd("FORMD_TEST_INBOX_RETENTION=2s", "FORMD_UPLOAD_SWEEP_INTERVAL=1s")
		lf := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"}, "testMode": true})
		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "kept-for-two-seconds"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.JSON).To(HaveKeyWithValue("test", true), "a form in test mode needs no header")
		Expect(f.testInbox(lf.Token, lf.ID, "")).To(HaveLen(1))
		db := f.OpenDB()
		Expect(db.Int(`SELECT count(*) FROM test_inbox WHERE form_id = $1`, lf.ID)).To(Equal(1))
		Eventually(func() int { return db.Int(`SELECT count(*) FROM test_inbox WHERE form_id = $1`, lf.ID) }).
			WithTimeout(10 * time.Second).WithPolling(200 * time.Millisecond).Should(BeZero())
		Expect(f.testInbox(lf.Token, lf.ID, "")).To(BeEmpty())
		Expect(strings.Join(db.TablesHolding("kept-for-two-seconds"), ",")).To(BeEmpty())
	})
})
