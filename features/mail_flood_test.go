package features_test

import (
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Floods of formd's own mails at one address, through every route that
// sends one.
var _ = Describe("Mail floods", func() {
	It("sends one address at most 10 verification mails an hour, however a form asks for them", func() {
		f := shared
		token, _ := f.RegisteredVerifiedUser()
		victim, other := UniqueEmail("victim"), UniqueEmail("other")
		form, _ := f.CreateForm(token, contactForm(map[string]any{"recipientEmail": other}))
		id := form["id"].(string)

		By("changing one form's recipientEmail back and forth 8 times: every change is kept")
		for i := range 8 {
			to := victim
			if i%2 == 1 {
				to = other
			}
			r := f.Patch(token, "/v1/forms/"+id, map[string]any{"recipientEmail": to})
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			Expect(r.Object("form")).To(HaveKeyWithValue("recipientEmail", to))
		}

		By("creating 12 forms for the address: every one is created")
		var last string
		for range 12 {
			created, _ := f.CreateForm(token, contactForm(map[string]any{"recipientEmail": victim}))
			last = created["id"].(string)
		}

		By("counting the mails the address received")
		Eventually(func() int { return len(f.Mail.To(victim)) }).WithTimeout(MailTimeout).Should(Equal(10))
		Consistently(func() int { return len(f.Mail.To(victim)) }).WithTimeout(time.Second).Should(Equal(10))
		Expect(len(f.Mail.To(other))).To(BeNumerically("<=", 5), "one form's mails, whatever the address")

		By("reading the last form's recipient as pending, with no mail sent, and a resend refused")
		v := f.Get(token, "/v1/forms/"+last+"/recipient-verification")
		Expect(v.Status).To(Equal(http.StatusOK), "%s", v)
		Expect(v.Object("verification")).To(SatisfyAll(
			HaveKeyWithValue("recipientEmail", victim), HaveKeyWithValue("status", "pending"),
			Not(HaveKey("deliveryId")), HaveKeyWithValue("nextStep", ContainSubstring("No verification email was sent"))))
		r := f.Post(token, "/v1/forms/"+last+"/recipient-verifications", nil)
		ExpectError(r, http.StatusTooManyRequests, "Too many verification emails")
		Expect(r.Header.Get("Retry-After")).To(MatchRegexp(`^[0-9]+$`))
	})

	It("limits an account's /v1 writes with 429 and Retry-After", func() {
		own := StartFormd("FORMD_API_WRITE_RATE=3")
		token, _ := own.RegisteredVerifiedUser()
		form, _ := own.CreateForm(token, contactForm(nil))
		id := form["id"].(string)
		for i := range 2 {
			Expect(own.Patch(token, "/v1/forms/"+id, map[string]any{"name": "Renamed"}).Status).To(Equal(http.StatusOK), "write %d", i+2)
		}
		r := own.Patch(token, "/v1/forms/"+id, map[string]any{"name": "Once more"})
		ExpectError(r, http.StatusTooManyRequests, "Too many changes from this account")
		Expect(r.Header.Get("Retry-After")).To(MatchRegexp(`^[0-9]+$`))
		Expect(own.Get(token, "/v1/forms").Status).To(Equal(http.StatusOK), "reads are not counted")
	})
})
