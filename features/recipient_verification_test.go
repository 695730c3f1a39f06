package features_test

import (
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Recipient verification", func() {
	var f *Formd
	BeforeEach(func() { f = shared })

	var token, recipient, id string

	BeforeEach(func() {
		token, _ = f.RegisteredVerifiedUser()
		recipient = UniqueEmail("inbox")
		form, _ := f.CreateForm(token, contactForm(map[string]any{"recipientEmail": recipient}))
		id = form["id"].(string)
	})

	verificationOf := func() map[string]any {
		GinkgoHelper()
		r := f.Get(token, "/v1/forms/"+id+"/recipient-verification")
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		return r.Object("verification")
	}

	It("walks the recipient through verification by email", func() {
		By("reading the pending verification")
		v := verificationOf()
		Expect(v).To(HaveKeyWithValue("formId", id))
		Expect(v).To(HaveKeyWithValue("recipientEmail", recipient))
		Expect(v).To(HaveKeyWithValue("status", "pending"))
		Expect(v).To(HaveKeyWithValue("deliveryId", Not(BeEmpty())))
		Expect(v["expiresAt"]).To(BeAssignableToTypeOf(""))
		expires, err := time.Parse(time.RFC3339, v["expiresAt"].(string))
		Expect(err).NotTo(HaveOccurred())
		Expect(expires).To(BeTemporally(">", time.Now()))

		By("the recipient receiving the verification email")
		m := f.Mail.WaitForMail(recipient)
		Expect(m.From).To(Equal("formd@test.local"))
		Expect(m.Header.Get("Message-Id")).To(ContainSubstring(v["deliveryId"].(string)), "the mail is the delivery the API names")
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("recipientVerified", false))

		By("the recipient following the link: opening it, then confirming with its page's button (issue 8, item 6)")
		page := f.FollowLink(Link(m))
		Expect(page.Status).To(Equal(http.StatusOK), "%s", page)
		Expect(string(page.Body)).To(ContainSubstring(recipient))

		By("the form showing a verified recipient")
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("recipientVerified", true))
		Expect(verificationOf()).To(HaveKeyWithValue("status", "verified"))
		events := f.Events(token, id)
		Expect(events).To(HaveLen(2))
		Expect(events[1]).To(HaveKeyWithValue("type", "form.recipient_verified.v1"))
		Expect(events[1]).To(HaveKeyWithValue("version", BeNumerically("==", 2)))
		Expect(events[1]["changes"]).To(ConsistOf(change("recipientVerified", false, true)))
		Expect(events[1]["requestId"]).To(Equal(page.RequestID()))

		By("following the link again changing nothing")
		Expect(f.FollowLink(Link(m)).Status).To(Equal(http.StatusOK))
		Expect(f.Events(token, id)).To(HaveLen(2))
	})

	It("sends a new verification email on request", func() {
		first := f.Mail.WaitForMail(recipient)
		before := verificationOf()

		By("asking for a new email")
		r := f.Post(token, "/v1/forms/"+id+"/recipient-verifications", nil)
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
		v := r.Object("verification")
		Expect(v).To(HaveKeyWithValue("formId", id))
		Expect(v).To(HaveKeyWithValue("recipientEmail", recipient))
		Expect(v).To(HaveKeyWithValue("status", "pending"))
		Expect(v).To(HaveKeyWithValue("deliveryId", Not(BeEmpty())))
		Expect(v["deliveryId"]).NotTo(Equal(before["deliveryId"]))
		Expect(verificationOf()).To(HaveKeyWithValue("deliveryId", v["deliveryId"]))

		By("the recipient receiving another email with another link")
		second := f.Mail.WaitForMail(recipient)
		Expect(second.Header.Get("Message-Id")).To(ContainSubstring(v["deliveryId"].(string)))
		Expect(Link(second)).NotTo(Equal(Link(first)))

		By("the new link verifying the recipient")
		Expect(f.FollowLink(Link(second)).Status).To(Equal(http.StatusOK))
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("recipientVerified", true))
	})

	It("asks a new recipient to verify when recipientEmail changes", func() {
		By("verifying the first recipient")
		f.VerifyRecipient(recipient)
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("recipientVerified", true))

		By("changing other settings keeping the recipient verified")
		Expect(f.Patch(token, "/v1/forms/"+id, map[string]any{"name": "Renamed"}).Object("form")).To(HaveKeyWithValue("recipientVerified", true))

		By("changing the recipient")
		newRecipient := UniqueEmail("newinbox")
		r := f.Patch(token, "/v1/forms/"+id, map[string]any{"recipientEmail": newRecipient})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Object("form")).To(HaveKeyWithValue("recipientVerified", false))
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("recipientVerified", false))
		Expect(verificationOf()).To(SatisfyAll(
			HaveKeyWithValue("recipientEmail", newRecipient),
			HaveKeyWithValue("status", "pending"),
		))

		By("the audit trail recording the new address")
		events := f.Events(token, id)
		Expect(events[len(events)-1]["changes"]).To(ContainElement(change("recipientEmail", recipient, newRecipient)))

		By("the new recipient receiving a verification email and following it")
		f.VerifyRecipient(newRecipient)
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("recipientVerified", true))
		Expect(verificationOf()).To(HaveKeyWithValue("status", "verified"))
	})

	It("refuses a link for an address the form no longer uses", func() {
		oldMail := f.Mail.WaitForMail(recipient)

		By("changing the recipient before the old one verified")
		newRecipient := UniqueEmail("newinbox")
		Expect(f.Patch(token, "/v1/forms/"+id, map[string]any{"recipientEmail": newRecipient}).Status).To(Equal(http.StatusOK))

		By("the old recipient following the old link")
		page := f.ConfirmLink(Link(oldMail)) // the page's button: links verify by POST (issue 8, item 6)
		Expect(page.Status).To(Equal(http.StatusBadRequest), "%s", page)
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("recipientVerified", false))
		Expect(verificationOf()).To(HaveKeyWithValue("status", "pending"))
	})
})
