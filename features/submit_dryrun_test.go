package features_test

import (
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// submitGates are the gates of a submission, in the order formd checks them.
var submitGates = []string{"access_key", "recipient_verified", "origin", "server_side", "captcha", "honeypot", "spam", "redirect",
	"paid_features", "uploads", "fields", "quota"}

// gateVerdicts lists a dry run's gates as "gate=outcome", in order.
func gateVerdicts(r *Response) []string {
	GinkgoHelper()
	var out []string
	for _, g := range r.Array("gates") {
		gate, ok := g.(map[string]any)
		Expect(ok).To(BeTrue(), "a gate is an object: %s", r)
		out = append(out, gate["gate"].(string)+"="+gate["outcome"].(string))
	}
	return out
}

// gateMessage is the message of one gate of a dry run.
func gateMessage(r *Response, name string) string {
	GinkgoHelper()
	for _, g := range r.Array("gates") {
		if gate := g.(map[string]any); gate["gate"] == name {
			msg, _ := gate["message"].(string)
			return msg
		}
	}
	Fail("no gate " + name + " in " + r.String())
	return ""
}

// dryRun is the header that asks for a dry run.
func dryRunHeader(value string) http.Header {
	h := fromExampleCom()
	h.Set("X-Service-Dry-Run", value)
	return h
}

// expectNothingQueued asserts that a form has no accepted submission, no
// queued delivery and no sealed payload, and that its recipient receives no
// email beyond the verification mail(s) already counted in mailsSoFar.
func expectNothingQueued(f *Formd, db *DB, formID, recipient string, mailsSoFar int) {
	GinkgoHelper()
	Expect(db.AcceptedSubmissions(formID)).To(BeEmpty(), "submission.accepted.v1 events")
	Expect(db.QueuedDeliveries(formID)).To(BeEmpty(), "deliveries queued by submission.accepted events")
	Expect(db.Int(`SELECT count(*) FROM submission_payloads WHERE form_id = $1`, formID)).To(BeZero(), "sealed payloads")
	Expect(db.Int(`SELECT count(*) FROM idempotency_keys WHERE form_id = $1`, formID)).To(BeZero(), "idempotency keys")
	Consistently(func() []Mail { return f.Mail.To(recipient) }).
		WithTimeout(500*time.Millisecond).WithPolling(50*time.Millisecond).Should(HaveLen(mailsSoFar), "no email to the recipient")
}

var _ = Describe("Dry-run submissions", func() {
	var f *Formd
	var db *DB
	BeforeEach(func() {
		f = shared
		db = f.OpenDB()
	})

	DescribeTable("let an integrator check a form before its recipient is verified, queueing nothing",
		func(header string) {
			token, _ := f.RegisteredVerifiedUser()
			form, key := f.CreateForm(token, contactForm(nil))
			recipient, id := form["recipientEmail"].(string), form["id"].(string)
			f.Mail.WaitForMail(recipient) // the verification mail, left unanswered
			submitter := UniqueEmail("visitor")

			By("posting a dry run with X-Service-Dry-Run: " + header)
			r := f.Post("", "/submit", orderedJSON("access_key", key, "name", "Ada Lovelace", "email", submitter,
				"message", "Hello!", "botcheck", "", "subject", "Checking the form"), dryRunHeader(header))
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			Expect(r.JSON).To(HaveKeyWithValue("success", true))
			Expect(r.JSON).To(HaveKeyWithValue("dryRun", true))
			Expect(r.JSON).To(HaveKeyWithValue("message", Not(BeEmpty())))
			Expect(r.JSON).To(HaveKeyWithValue("requestId", r.RequestID()))
			Expect(r.JSON).NotTo(HaveKey("deliveryId"), "a dry run queues no delivery")
			Expect(r.JSON).NotTo(HaveKey("autoresponderDeliveryId"))

			By("reading which fields would be forwarded, in the order they were posted")
			Expect(r.Object("validation")).To(Equal(map[string]any{
				"deliveryQueued":    false,
				"fieldNames":        []any{"name", "email", "message"},
				"recipientVerified": false,
			}))

			By("reading the verdict of every gate")
			Expect(gateVerdicts(r)).To(Equal([]string{
				"access_key=passed", "recipient_verified=skipped", "origin=passed", "server_side=skipped", "captcha=skipped",
				"honeypot=passed", "spam=skipped", "redirect=skipped", "paid_features=passed", "uploads=skipped", "fields=passed",
				"quota=passed",
			}))

			By("finding nothing queued and no email sent")
			expectNothingQueued(f, db, id, recipient, 1)
			Expect(f.FormByID(token, id)).To(HaveKeyWithValue("recipientVerified", false))
		},
		Entry("true", "true"),
		Entry("1", "1"),
		Entry("TRUE (case-insensitive)", "TRUE"),
	)

	It("reports recipientVerified once the recipient is verified, and still queues nothing", func() {
		lf := f.LiveForm(nil)
		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hello!"}, dryRunHeader("1"))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.JSON).To(HaveKeyWithValue("dryRun", true))
		Expect(r.Object("validation")).To(HaveKeyWithValue("recipientVerified", true))
		Expect(r.Object("validation")).To(HaveKeyWithValue("deliveryQueued", false))
		Expect(gateVerdicts(r)).To(HaveLen(len(submitGates)))
		expectNothingQueued(f, db, lf.ID, lf.Recipient, 1)
	})

	It("answers 400 for a dry run that would fail, showing every failing gate and evaluating the others", func() {
		token, _ := f.RegisteredVerifiedUser()
		form, key := f.CreateForm(token, contactForm(map[string]any{
			"allowedDomains": []string{"www.example.com"},
			"validation":     rule(map[string]any{"field": "message", "required": true}),
		}))
		recipient, id := form["recipientEmail"].(string), form["id"].(string)
		f.Mail.WaitForMail(recipient)

		By("posting from another site, with the honeypot filled, a paid feature and no message")
		h := Header("Origin", "https://elsewhere.example.org")
		h.Set("X-Service-Dry-Run", "true")
		r := f.Post("", "/submit", map[string]any{"access_key": key, "name": "Bot", "botcheck": "I am a bot",
			"ccemail": UniqueEmail("cc")}, h)

		Expect(r.Status).To(Equal(http.StatusBadRequest), "%s", r)
		Expect(r.JSON).To(HaveKeyWithValue("success", false))
		Expect(r.JSON).To(HaveKeyWithValue("dryRun", true))
		Expect(r.JSON).To(HaveKeyWithValue("requestId", r.RequestID()))
		Expect(r.JSON["message"]).To(ContainSubstring("allowedDomains"), "the message names the first failing gate")
		Expect(gateVerdicts(r)).To(Equal([]string{
			"access_key=passed", "recipient_verified=skipped", "origin=failed", "server_side=skipped", "captcha=skipped",
			"honeypot=failed", "spam=skipped", "redirect=skipped", "paid_features=failed", "uploads=skipped", "fields=failed",
			"quota=passed",
		}))
		Expect(gateMessage(r, "honeypot")).To(ContainSubstring("spam"))
		Expect(gateMessage(r, "paid_features")).To(ContainSubstring("ccemail"))
		Expect(gateMessage(r, "fields")).To(Equal("Submission validation failed."))
		Expect(r.Array("errors")).To(ConsistOf(SatisfyAll(
			HaveKeyWithValue("field", "message"), HaveKeyWithValue("rule", "required"), HaveKeyWithValue("message", Not(BeEmpty())))))
		Expect(r.Object("validation")).To(Equal(map[string]any{
			"deliveryQueued": false, "fieldNames": []any{"name"}, "recipientVerified": false,
		}))

		expectNothingQueued(f, db, id, recipient, 1)
	})

	It("answers 400 naming access_key for a dry run without one", func() {
		r := f.Post("", "/submit", map[string]any{"message": "Hello!"}, dryRunHeader("true"))
		ExpectError(r, http.StatusBadRequest, "access_key")
		Expect(r.JSON).To(HaveKeyWithValue("dryRun", true))
		Expect(gateVerdicts(r)).To(ContainElement("access_key=failed"))
	})

	DescribeTable("treats any other X-Service-Dry-Run value as a live submission",
		func(header string) {
			lf := f.LiveForm(nil)
			r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Live, really"}, dryRunHeader(header))
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			Expect(r.JSON).To(HaveKeyWithValue("success", true))
			Expect(r.JSON).To(HaveKeyWithValue("message", "Email sent successfully!"))
			Expect(r.JSON).NotTo(HaveKeyWithValue("dryRun", true))
			Expect(r.JSON).NotTo(HaveKey("gates"))
			Expect(r.JSON).To(HaveKeyWithValue("deliveryId", MatchRegexp(uuidPattern)))

			Expect(db.AcceptedByRequest(r.RequestID()).Data).To(HaveKeyWithValue("formId", lf.ID))
			m := f.Mail.WaitForMail(lf.Recipient)
			Expect(m.Header.Get("Message-Id")).To(ContainSubstring(r.JSON["deliveryId"].(string)))
			Expect(m.Text).To(ContainSubstring("Live, really"))
		},
		Entry("false", "false"),
		Entry("yes", "yes"),
	)
})
