package features_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/mail"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// mailWithID waits for the email to `to` whose Message-Id names the
// delivery id (the order in which deliveries arrive is not fixed).
func mailWithID(f *Formd, to, deliveryID string) Mail {
	GinkgoHelper()
	Expect(deliveryID).NotTo(BeEmpty())
	var found Mail
	Eventually(func() bool {
		for _, m := range f.Mail.To(to) {
			if strings.Contains(m.Header.Get("Message-Id"), deliveryID) {
				found = m
				return true
			}
		}
		return false
	}).WithTimeout(MailTimeout).WithPolling(20*time.Millisecond).Should(BeTrue(), "an email to %s with Message-Id %s", to, deliveryID)
	return found
}

// fromName is the display name of an email's From header.
func fromName(m Mail) string {
	GinkgoHelper()
	a, err := mail.ParseAddress(m.Header.Get("From"))
	Expect(err).NotTo(HaveOccurred(), "From: %q", m.Header.Get("From"))
	return a.Name
}

// replyToOf is the address of an email's Reply-To header ("" when absent).
func replyToOf(m Mail) string {
	GinkgoHelper()
	raw := m.Header.Get("Reply-To")
	if raw == "" {
		return ""
	}
	a, err := mail.ParseAddress(raw)
	Expect(err).NotTo(HaveOccurred(), "Reply-To: %q", raw)
	return a.Address
}

// deliveryRefs are the deliveries an accepted event plans, as "kind=id".
func deliveryRefs(e DBEvent) []string {
	GinkgoHelper()
	refs, ok := e.Data["deliveries"].([]any)
	Expect(ok).To(BeTrue(), "deliveries in %v", e.Data)
	var out []string
	for _, r := range refs {
		ref := r.(map[string]any)
		out = append(out, ref["kind"].(string)+"="+ref["id"].(string))
	}
	return out
}

var _ = Describe("Accepting a live submission", func() {
	var f *Formd
	var db *DB
	BeforeEach(func() {
		f = shared
		db = f.OpenDB()
	})

	It("commits the submission and its deliveries before answering 200, keeping no raw value anywhere", func() {
		// A webhook receiver that answers 503 keeps one delivery retrying, so
		// the sealed payload is certainly still there after the 200. (This
		// formd may call loopback receivers.)
		receiver := startWebhookReceiver()
		f = StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		db = f.OpenDB()
		lf := f.LiveForm(nil)
		f.Grant(lf.OwnerEmail, "per_submit_webhook")
		marker := "needle-" + randomHex(12)
		message := "Please call me back about " + marker
		submitter := UniqueEmail("visitor")

		By("posting a submission")
		h := fromExampleCom()
		h.Set("Idempotency-Key", "first-try-"+randomHex(4))
		r := f.Post("", "/submit", orderedJSON("access_key", lf.AccessKey, "name", "Ada Lovelace", "email", submitter,
			"message", message, "subject", "About "+marker, "webhook", receiver.URL("/unavailable")), h)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.JSON).To(HaveKeyWithValue("success", true))
		Expect(r.JSON).To(HaveKeyWithValue("message", "Email sent successfully!"))
		Expect(r.JSON).To(HaveKeyWithValue("requestId", r.RequestID()))
		deliveryID, _ := r.JSON["deliveryId"].(string)
		Expect(deliveryID).To(MatchRegexp(uuidPattern))
		Expect(r.Array("webhookDeliveryIds")).To(HaveLen(1))
		webhookID := r.Array("webhookDeliveryIds")[0].(string)
		Expect(r.Object("body")["data"]).To(Equal(map[string]any{"name": "Ada Lovelace", "email": submitter, "message": message}))

		By("finding the accepted submission in the database right away")
		accepted := db.AcceptedByRequest(r.RequestID())
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(1))
		submissionID := accepted.StreamID
		Expect(accepted.StreamType).To(Equal("submission"))
		Expect(accepted.Data).To(HaveKeyWithValue("formId", lf.ID))
		Expect(accepted.Data).To(HaveKeyWithValue("requestId", r.JSON["requestId"]))
		Expect(accepted.Data).To(HaveKeyWithValue("fieldNames", []any{"name", "email", "message"}))
		hashes, ok := accepted.Data["valueHashes"].(map[string]any)
		Expect(ok).To(BeTrue(), "valueHashes in %v", accepted.Data)
		Expect(hashes).To(HaveLen(3))
		for _, name := range []string{"name", "email", "message"} {
			Expect(hashes).To(HaveKeyWithValue(name, MatchRegexp(`^[0-9a-f]{32,64}$`)), "a hex hash (128 bits at least) of %s", name)
		}
		plain := sha256.Sum256([]byte(message))
		Expect(hex.EncodeToString(plain[:])).NotTo(HavePrefix(hashes["message"].(string)), "hashes are keyed, not plain SHA-256")
		Expect(deliveryRefs(accepted)).To(ConsistOf("email="+deliveryID, "webhook="+webhookID))

		By("finding the deliveries queued by submission.accepted itself, with where each goes shown safely")
		targets := map[string]string{}
		for _, r := range accepted.Data["deliveries"].([]any) {
			ref := r.(map[string]any)
			targets[ref["id"].(string)], _ = ref["target"].(string)
		}
		Expect(targets).To(HaveKeyWithValue(deliveryID, Not(BeEmpty())))
		Expect(targets[deliveryID]).NotTo(Equal(lf.Recipient), "the address is shown masked, as the delivery log shows it")
		Expect(targets).To(HaveKeyWithValue(webhookID, Not(BeEmpty())))
		Expect(db.Events(`event_type = 'delivery.queued.v1' AND stream_id IN ($1, $2)`, deliveryID, webhookID)).To(BeEmpty(),
			"no delivery.queued.v1 of their own")
		Expect(db.Int(`SELECT count(*) FROM deliveries WHERE submission_id = $1 AND form_id = $2`, submissionID, lf.ID)).To(Equal(2))

		By("finding the payload sealed: its ciphertext does not hold the value")
		Expect(db.PayloadCount(submissionID)).To(Equal(1))
		Expect(db.CiphertextHolds(submissionID, marker)).To(BeFalse())
		Expect(db.Int(`SELECT count(*) FROM idempotency_keys WHERE form_id = $1`, lf.ID)).To(Equal(1))

		By("finding the raw value in no table, and not in formd's log")
		Expect(db.TablesHolding(marker)).To(BeEmpty())
		Expect(db.TablesHolding(lf.AccessKey)).To(BeEmpty(), "nor the access key")
		Expect(string(f.Session.Out.Contents()) + string(f.Session.Err.Contents())).NotTo(ContainSubstring(marker))

		By("the recipient receiving the notification while the webhook still waits")
		m := mailWithID(f, lf.Recipient, deliveryID)
		Expect(m.Text).To(ContainSubstring(marker))
		Eventually(func(g Gomega) {
			row, ok := db.Delivery(webhookID)
			g.Expect(ok).To(BeTrue())
			g.Expect(row.Status).To(Equal("retrying"))
		}).WithTimeout(10 * time.Second).Should(Succeed())
		Expect(db.PayloadCount(submissionID)).To(Equal(1), "kept until every delivery is final")
		Expect(db.TablesHolding(marker)).To(BeEmpty())
	})

	Describe("with an autoresponder", func() {
		var lf LiveForm
		BeforeEach(func() {
			lf = f.LiveForm(map[string]any{"autoresponder": map[string]any{
				"enabled": true, "subject": "Thanks for writing", "message": "We will answer within a day.",
			}})
		})

		It("sends the submitter a confirmation when they give a valid email", func() {
			submitter := UniqueEmail("visitor")
			r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "email": submitter, "message": "Hello"}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			auto, _ := r.JSON["autoresponderDeliveryId"].(string)
			Expect(auto).To(MatchRegexp(uuidPattern))
			Expect(auto).NotTo(Equal(r.JSON["deliveryId"]))

			accepted := db.AcceptedByRequest(r.RequestID())
			Expect(deliveryRefs(accepted)).To(ConsistOf("email="+r.JSON["deliveryId"].(string), "autoresponder="+auto))
			Expect(db.Text(`SELECT kind FROM deliveries WHERE id = $1`, auto)).To(Equal("autoresponder"))

			By("the submitter receiving the autoresponder")
			m := f.Mail.WaitForMail(submitter)
			Expect(m.Subject).To(Equal("Thanks for writing"))
			Expect(m.Text).To(ContainSubstring("We will answer within a day."))
			Expect(m.Header.Get("Message-Id")).To(ContainSubstring(auto))

			By("the recipient receiving the notification")
			mailWithID(f, lf.Recipient, r.JSON["deliveryId"].(string))
		})

		DescribeTable("sends no autoresponder without a valid submitter email",
			func(fields map[string]any) {
				fields["access_key"] = lf.AccessKey
				r := f.Post("", "/submit", fields, fromExampleCom())
				Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
				Expect(r.JSON).NotTo(HaveKey("autoresponderDeliveryId"))
				Expect(deliveryRefs(db.AcceptedByRequest(r.RequestID()))).To(ConsistOf("email=" + r.JSON["deliveryId"].(string)))
				Expect(db.QueuedDeliveries(lf.ID)).To(HaveLen(1))
				mailWithID(f, lf.Recipient, r.JSON["deliveryId"].(string))
			},
			Entry("no email field", map[string]any{"message": "Hello"}),
			Entry("an email that is not an address", map[string]any{"message": "Hello", "email": "not-an-address"}),
		)
	})

	Describe("choosing the notification's Reply-To", func() {
		const (
			wantSubmitted = "the submitted email"
			wantOverride  = "the replyto field"
			wantDefault   = "the form's replyToDefault"
			wantNone      = "no Reply-To"
		)
		DescribeTable("follows the form's replyToMode",
			func(mode string, email, override bool, want string) {
				settings := map[string]any{"replyToMode": mode}
				defaultAddr := UniqueEmail("support")
				if mode == "default" {
					settings["replyToDefault"] = defaultAddr
				}
				lf := f.LiveForm(settings)
				fields := map[string]any{"access_key": lf.AccessKey, "message": "Hello"}
				submitted, overridden := UniqueEmail("visitor"), UniqueEmail("reply")
				if email {
					fields["email"] = submitted
				}
				if override {
					fields["replyto"] = overridden
				}
				r := f.Post("", "/submit", fields, fromExampleCom())
				Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
				m := mailWithID(f, lf.Recipient, r.JSON["deliveryId"].(string))
				expected := map[string]string{wantSubmitted: submitted, wantOverride: overridden, wantDefault: defaultAddr, wantNone: ""}[want]
				Expect(replyToOf(m)).To(Equal(expected), "Reply-To should be %s", want)
			},
			Entry("submitter mode uses the submitted email", "submitter", true, false, wantSubmitted),
			Entry("submitter mode lets replyto win over the email", "submitter", true, true, wantOverride),
			Entry("submitter mode without an email sets none", "submitter", false, false, wantNone),
			Entry("default mode uses replyToDefault", "default", true, false, wantDefault),
			Entry("default mode lets replyto win", "default", true, true, wantOverride),
			Entry("none mode sets none, even with email and replyto", "none", true, true, wantNone),
		)
	})

	// expectNoInjection asserts that a submission whose routing fields carry
	// line breaks was refused (400), or else delivered to the recipient only,
	// with no header added; it returns the notification (nil when refused).
	expectNoInjection := func(lf LiveForm, r *Response, attacker string) *Mail {
		GinkgoHelper()
		if r.Status == http.StatusBadRequest {
			ExpectError(r, http.StatusBadRequest) // refusing it outright is fine too
			return nil
		}
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		m := mailWithID(f, lf.Recipient, r.JSON["deliveryId"].(string))
		Expect(m.To).To(Equal([]string{lf.Recipient}), "the envelope has the recipient only")
		Expect(m.Header).To(HaveKey("Subject"))
		Expect(m.Header).NotTo(HaveKey("X-Injected"))
		Expect(m.Header).NotTo(HaveKey("Bcc"))
		Consistently(func() []Mail { return f.Mail.To(attacker) }).WithTimeout(300 * time.Millisecond).Should(BeEmpty())
		return &m
	}

	It("lets no line break in subject or email add a header to the notification", func() {
		lf := f.LiveForm(nil)
		attacker := UniqueEmail("attacker")
		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hi",
			"subject": "Quote\r\nBcc: " + attacker + "\r\nX-Injected: subject",
			"email":   UniqueEmail("visitor") + "\r\nBcc: " + attacker}, fromExampleCom())
		if m := expectNoInjection(lf, r, attacker); m != nil {
			Expect(m.Subject).To(HavePrefix("Quote"), "the subject stays one (encoded) header")
			Expect(replyToOf(*m)).To(BeEmpty(), "an email with a line break is no address to reply to")
		}
	})

	// Regression: a from_name with a line break once made the notification
	// undeliverable (go-mail refused the From header and the failure was retried
	// for hours). Header values are now kept on one line.
	It("delivers the notification when from_name holds a line break, adding no header", func() {
		lf := f.LiveForm(nil)
		attacker := UniqueEmail("attacker")
		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hi",
			"from_name": "Ada\r\nBcc: " + attacker + "\r\nX-Injected: from_name"}, fromExampleCom())
		expectNoInjection(lf, r, attacker)
	})

	It("ignores blank subject, from_name and replyto, and uses non-blank ones", func() {
		lf := f.LiveForm(map[string]any{"subjectDefault": "Website enquiry", "fromNameDefault": "Acme Website"})
		submitter := UniqueEmail("visitor")

		By("posting blank overrides")
		blank := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "email": submitter, "message": "Hi",
			"subject": "   ", "from_name": "", "replyto": " "}, fromExampleCom())
		Expect(blank.Status).To(Equal(http.StatusOK), "%s", blank)
		m := mailWithID(f, lf.Recipient, blank.JSON["deliveryId"].(string))
		Expect(m.Subject).To(Equal("Website enquiry"))
		Expect(fromName(m)).To(Equal("Acme Website"))
		Expect(replyToOf(m)).To(Equal(submitter))

		By("posting real overrides")
		other := UniqueEmail("reply")
		set := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "email": submitter, "message": "Hi again",
			"subject": "Quote request", "from_name": "Ada Lovelace", "replyto": other}, fromExampleCom())
		Expect(set.Status).To(Equal(http.StatusOK), "%s", set)
		m = mailWithID(f, lf.Recipient, set.JSON["deliveryId"].(string))
		Expect(m.Subject).To(Equal("Quote request"))
		Expect(fromName(m)).To(Equal("Ada Lovelace"))
		Expect(replyToOf(m)).To(Equal(other))
		from, err := mail.ParseAddress(m.Header.Get("From"))
		Expect(err).NotTo(HaveOccurred())
		Expect(from.Address).To(Equal("formd@test.local"), "the sender address stays formd's own")

		By("the routing fields being neither forwarded nor hashed")
		Expect(set.Object("body")["data"]).To(Equal(map[string]any{"email": submitter, "message": "Hi again"}))
		Expect(db.AcceptedByRequest(set.RequestID()).Data).To(HaveKeyWithValue("fieldNames", ConsistOf("email", "message")))
		Expect(m.Text).To(ContainSubstring("message: Hi again"))
		Expect(m.Text).NotTo(ContainSubstring(lf.AccessKey))
		Expect(m.Text).NotTo(ContainSubstring("Quote request"))
	})
})
