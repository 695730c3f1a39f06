package features_test

import (
	"net/http"
	"net/url"
	"strings"
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

	It("sends one address at most 3 password reset mails from a flood of the dashboard, and its owner's first link still works", func() {
		f := shared
		owner := UniqueEmail("owner")
		f.Register(owner, DefaultPassword)
		f.Mail.WaitForMail(owner) // the account's verification mail
		resets := func() []Mail {
			var out []Mail
			for _, m := range f.Mail.To(owner) {
				if strings.Contains(strings.ToLower(m.Subject), "password") {
					out = append(out, m)
				}
			}
			return out
		}
		ask := func(email string) *http.Response {
			c := newDashboardClient(f, "")
			return c.post("/dashboard/password-reset", url.Values{"csrf_token": {c.csrfOf("/dashboard/password-reset")}, "email": {email}})
		}

		By("the owner asking for a reset on the dashboard")
		Expect(ask(owner).StatusCode).To(Equal(http.StatusSeeOther))
		genuine := Link(f.Mail.WaitForMail(owner))

		By("someone else asking 10 more times for the address: two more are let through, then 429")
		var statuses []int
		for range 10 {
			r := ask(owner)
			statuses = append(statuses, r.StatusCode)
			if r.StatusCode == http.StatusTooManyRequests {
				Expect(r.Header.Get("Retry-After")).To(MatchRegexp(`^[0-9]+$`))
				Expect(readBody(r)).To(ContainSubstring("Too many password reset requests"))
			}
		}
		Expect(statuses[:2]).To(HaveEach(http.StatusSeeOther))
		Expect(statuses[2:]).To(HaveEach(http.StatusTooManyRequests))
		By("the JSON API sharing the limit")
		ExpectError(f.Post("", "/agent/auth/password-reset", map[string]any{"email": strings.ToUpper(owner)}),
			http.StatusTooManyRequests, "Too many password reset requests")
		Eventually(func() int { return len(resets()) }).WithTimeout(MailTimeout).Should(Equal(3))
		Consistently(func() int { return len(resets()) }).WithTimeout(time.Second).Should(Equal(3))

		By("the owner's first link still setting a new password, and spending the flood's links")
		done := f.ConfirmLink(genuine, "password", "the owner's new passphrase")
		Expect(done.Status).To(Equal(http.StatusOK), "%s", done)
		Expect(string(done.Body)).To(ContainSubstring("Password changed"))
		spent := f.ConfirmLink(Link(resets()[2]), "password", "a flooder's passphrase")
		Expect(spent.Status).To(Equal(http.StatusBadRequest), "%s", spent)
		Expect(string(spent.Body)).To(ContainSubstring("another reset link"))

		By("an address without an account answered alike")
		nobody := UniqueEmail("nobody")
		for range 3 {
			Expect(ask(nobody).StatusCode).To(Equal(http.StatusSeeOther))
		}
		Expect(ask(nobody).StatusCode).To(Equal(http.StatusTooManyRequests))
		Expect(f.Mail.To(nobody)).To(BeEmpty())
	})
})
