package features_test

import (
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Verification mails are deliveries: they go through the delivery queue with
// its attempts, retry schedule and final failures, so no mail holds up
// another (security review, issue 8 item 1; issue 9 item 2).
var _ = Describe("Verification mails", func() {
	It("still reach the next account after one the SMTP server refuses for good", func() {
		// A formd of its own: before the fix, the refused mail stalled the
		// verification mails of every later spec on the same formd.
		f := StartFormd()
		db := f.OpenDB()

		By("registering an address the SMTP server refuses with 550")
		refused := UniqueEmail("refused")
		f.Mail.Refuse(refused)
		f.Register(refused, DefaultPassword)

		By("registering the next account, whose verification mail arrives and verifies it")
		next := UniqueEmail("next")
		token := f.Register(next, DefaultPassword)
		f.VerifyAccount(next)
		f.CreateForm(token, map[string]any{"name": "Contact", "recipientEmail": UniqueEmail("inbox")})

		By("the refused mail ending failed after one attempt, as a permanent failure")
		id := db.AccountVerificationDelivery(refused)
		Eventually(func() string { row, _ := db.Delivery(id); return row.Status }).
			WithTimeout(10 * time.Second).Should(Equal("failed"))
		row, _ := db.Delivery(id)
		Expect(row.Kind).To(Equal("account_verification"))
		Expect(row.Attempts).To(Equal(1), "a 550 is not retried")
		Expect(row.LastError).To(ContainSubstring("550"))
		Expect(db.Events(`stream_id = $1 AND event_type = 'delivery.attempt_failed.v1'`, id)).To(BeEmpty())
		Expect(db.Events(`stream_id = $1 AND event_type = 'delivery.failed.v1'`, id)).To(HaveLen(1))
		Expect(f.Mail.To(refused)).To(BeEmpty())
	})

	It("retries a mail the SMTP server defers, and it arrives with a working link", func() {
		f := shared
		db := f.OpenDB()
		email := UniqueEmail("greylisted")
		f.Mail.Defer(email, 1)
		f.Register(email, DefaultPassword)

		By("the first attempt being deferred with 451 and a retry scheduled")
		id := db.AccountVerificationDelivery(email)
		Eventually(func() string { row, _ := db.Delivery(id); return row.Status }).
			WithTimeout(10 * time.Second).Should(Equal("retrying"))
		row, _ := db.Delivery(id)
		Expect(row.Attempts).To(Equal(1))
		Expect(row.LastError).To(ContainSubstring("451"))
		failed := db.Events(`stream_id = $1 AND event_type = 'delivery.attempt_failed.v1'`, id)
		Expect(failed).To(HaveLen(1))
		next, err := time.Parse(time.RFC3339Nano, failed[0].Data["nextAt"].(string))
		Expect(err).NotTo(HaveOccurred())
		Expect(next).To(BeTemporally(">", time.Now().Add(20*time.Second)), "the retry waits (30 s with jitter)")
		Expect(f.Mail.To(email)).To(BeEmpty())

		By("the retry coming due and going through")
		db.MakeDue(id)
		f.VerifyAccount(email)
		Eventually(func() string { row, _ := db.Delivery(id); return row.Status }).
			WithTimeout(10 * time.Second).Should(Equal("succeeded"))
		row, _ = db.Delivery(id)
		Expect(row.Attempts).To(Equal(2))
		Expect(f.Mail.To(email)).To(HaveLen(1), "one mail, sent once")
		Expect(f.Mail.To(email)[0].Header.Get("Message-ID")).To(Equal("<" + id + "@formd>"))
	})

	It("fails a recipient's verification mail the SMTP server refuses, in the form's deliveries", func() {
		f := shared
		db := f.OpenDB()
		token, _ := f.RegisteredVerifiedUser()
		recipient := UniqueEmail("refused-inbox")
		f.Mail.Refuse(recipient)
		form, _ := f.CreateForm(token, map[string]any{"name": "Contact", "recipientEmail": recipient})

		id := db.Text(`SELECT delivery_id::text FROM verifications WHERE subject_id = $1`, form["id"])
		Eventually(func() string { row, _ := db.Delivery(id); return row.Status }).
			WithTimeout(10 * time.Second).Should(Equal("failed"))
		row, _ := db.Delivery(id)
		Expect(row.Kind).To(Equal("recipient_verification"))
		Expect(row.Attempts).To(Equal(1))
		Expect(db.Text(`SELECT form_id::text FROM deliveries WHERE id = $1`, id)).To(Equal(form["id"]))

		By("a resend after the address is fixed going out")
		other := UniqueEmail("inbox")
		r := f.Patch(token, "/v1/forms/"+form["id"].(string), map[string]any{"recipientEmail": other})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		f.VerifyRecipient(other)
	})

	It("skips an event message no handler can read, records it, and keeps mailing", func() {
		f := StartFormd()
		db := f.OpenDB()

		By("a message on the delivery topic that is not an event")
		db.Exec(`INSERT INTO watermill_delivery (uuid, payload, metadata, transaction_id)
			VALUES ('poison-1', convert_to('not an event', 'UTF8'), '{}', pg_current_xact_id())`)

		By("the verification mails and a notification queued behind it arriving")
		lf := f.LiveForm(nil) // the account's and the recipient's verification mails
		r := f.Post("", "/submit/"+lf.AccessKey, map[string]any{"message": "behind a poisoned message"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(f.Mail.WaitForMail(lf.Recipient).Text).To(ContainSubstring("behind a poisoned message"))

		By("the message being kept aside with its reason, once")
		Expect(db.Int(`SELECT count(*) FROM poisoned_messages WHERE message_uuid = 'poison-1'`)).To(Equal(1))
		Expect(db.Text(`SELECT consumer_group || ' ' || topic FROM poisoned_messages WHERE message_uuid = 'poison-1'`)).
			To(Equal("delivery-queue delivery"))
		Expect(db.Text(`SELECT reason FROM poisoned_messages WHERE message_uuid = 'poison-1'`)).To(ContainSubstring("decode"))
	})
})
