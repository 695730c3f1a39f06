package features_test

import (
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Issue 8, item 6: an address could be registered by someone else before
// its owner signed up, and the owner's mail scanner, fetching the
// verification link, verified the stranger's account. Links now verify only
// with the POST of their page's button, and the owner of a mailbox can
// always take the account back with a password reset by email link.
var _ = Describe("Claiming an account before its owner", func() {
	var f *Formd
	BeforeEach(func() { f = shared })

	It("verifies nothing when a link is only opened, as mail scanners do; the page's button verifies", func() {
		email := UniqueEmail("scanned")
		token := f.Register(email, DefaultPassword)
		link := Link(f.Mail.WaitForMail(email))

		By("a mail scanner opening the account link, twice")
		page := f.OpenLink(link)
		f.OpenLink(link)
		Expect(page.Header.Get("Content-Type")).To(HavePrefix("text/html"))
		Expect(page.Header.Get("Content-Security-Policy")).To(SatisfyAll(
			ContainSubstring("frame-ancestors 'none'"), ContainSubstring("default-src 'none'"), Not(ContainSubstring("script-src"))))
		Expect(string(page.Body)).To(SatisfyAll(ContainSubstring(email), Not(ContainSubstring("<script"))))

		By("the account staying unverified")
		ExpectError(f.Post(token, "/v1/forms", contactForm(nil)), http.StatusBadRequest, "not verified")

		By("the button's POST verifying it")
		r := f.ConfirmLink(link)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(string(r.Body)).To(ContainSubstring("Email verified"))
		f.CreateForm(token, contactForm(nil))

		By("a recipient link behaving so too")
		recipient := UniqueEmail("inbox")
		form, _ := f.CreateForm(token, contactForm(map[string]any{"recipientEmail": recipient}))
		recipientLink := Link(f.Mail.WaitForMail(recipient))
		f.OpenLink(recipientLink)
		Expect(f.FormByID(token, form["id"].(string))).To(HaveKeyWithValue("recipientVerified", false))
		Expect(f.ConfirmLink(recipientLink).Status).To(Equal(http.StatusOK))
		Expect(f.FormByID(token, form["id"].(string))).To(HaveKeyWithValue("recipientVerified", true))
	})

	It("lets the owner of the mailbox take back an account someone else registered with it", func() {
		victim := UniqueEmail("victim")
		const attackerPassword, ownerPassword = "the attacker's passphrase", "the owner's own passphrase"

		By("an attacker registering the victim's address with the attacker's password")
		attacker := f.Register(victim, attackerPassword)
		f.OpenLink(Link(f.Mail.WaitForMail(victim))) // the victim's mail scanner

		By("the victim's own registration being refused without the attacker's password")
		ExpectError(f.Post("", "/agent/auth", map[string]any{"email": victim, "password": ownerPassword}),
			http.StatusBadRequest, "already exists")

		By("the victim asking for a password reset, answered as for an address without an account")
		asked := f.Post("", "/agent/auth/password-reset", map[string]any{"email": victim})
		Expect(asked.Status).To(Equal(http.StatusAccepted), "%s", asked)
		nobody := f.Post("", "/agent/auth/password-reset", map[string]any{"email": UniqueEmail("nobody")})
		Expect(nobody.Status).To(Equal(asked.Status))
		Expect(nobody.Body).To(Equal(asked.Body))
		Expect(asked.JSON).NotTo(HaveKey("credential"))

		By("the reset mail's link asking for a new password")
		m := f.Mail.WaitForMail(victim)
		Expect(strings.ToLower(m.Subject)).To(ContainSubstring("password"))
		link := Link(m)
		page := f.OpenLink(link)
		Expect(string(page.Body)).To(ContainSubstring(`type="password"`))
		Expect(f.Get(attacker, "/v1/forms").Status).To(Equal(http.StatusOK), "opening the link changes nothing")

		By("a password under 12 characters being refused, changing nothing")
		short := f.ConfirmLink(link, "password", "too short")
		Expect(short.Status).To(Equal(http.StatusBadRequest), "%s", short)
		Expect(string(short.Body)).To(ContainSubstring("12"))
		Expect(f.Get(attacker, "/v1/forms").Status).To(Equal(http.StatusOK))

		By("the victim setting a new password")
		done := f.ConfirmLink(link, "password", ownerPassword)
		Expect(done.Status).To(Equal(http.StatusOK), "%s", done)
		Expect(string(done.Body)).To(ContainSubstring("Password changed"))

		By("the attacker's session and password no longer working")
		ExpectError(f.Get(attacker, "/v1/forms"), http.StatusUnauthorized)
		ExpectError(f.Post("", "/agent/auth", map[string]any{"email": victim, "password": attackerPassword}),
			http.StatusBadRequest, "already exists")

		By("the victim's password signing in to a verified account")
		owner := f.Register(victim, ownerPassword)
		f.CreateForm(owner, contactForm(nil))

		By("the used link changing nothing again, and its page asking for no password")
		again := f.ConfirmLink(link, "password", attackerPassword)
		Expect(again.Status).To(Equal(http.StatusBadRequest), "%s", again)
		opened := f.Get("", link)
		Expect(opened.Status).To(Equal(http.StatusBadRequest), "%s", opened)
		Expect(string(opened.Body)).To(SatisfyAll(ContainSubstring("already used"), Not(ContainSubstring("<form"))))
		Expect(f.Get(owner, "/v1/forms").Status).To(Equal(http.StatusOK))
	})

	It("sends no reset mail for an address without an account", func() {
		nobody := UniqueEmail("nobody")
		Expect(f.Post("", "/agent/auth/password-reset", map[string]any{"email": nobody}).Status).To(Equal(http.StatusAccepted))
		Consistently(func() int { return len(f.Mail.To(nobody)) }, "500ms", "50ms").Should(BeZero())
	})

	It("limits reset mails per address with 429 and Retry-After, whether or not an account uses it", func() {
		own := StartFormd("FORMD_AUTH_RATE=60")
		for _, email := range []string{UniqueEmail("limited"), UniqueEmail("nobody")} {
			if strings.HasPrefix(email, "limited") {
				own.Register(email, DefaultPassword)
			}
			var last *Response
			for range 4 {
				last = own.Post("", "/agent/auth/password-reset", map[string]any{"email": email})
			}
			ExpectError(last, http.StatusTooManyRequests, "Too many")
			Expect(last.Header.Get("Retry-After")).NotTo(BeEmpty())
		}
	})
})
