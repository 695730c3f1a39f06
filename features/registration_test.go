package features_test

import (
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Account registration", func() {
	var f *Formd
	BeforeEach(func() { f = shared })

	It("hands an agent a session token credential with the documented shape", func() {
		By("registering a new account as user_claimed")
		email := UniqueEmail("agent")
		r := f.Post("", "/agent/auth", map[string]any{
			"email": email, "type": "user_claimed", "name": "Agent Smith",
			"password": DefaultPassword, "requested_credential_type": "session_token",
		})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)

		By("reading an AgentAuthResponse that no cache keeps")
		Expect(r.Header.Get("Cache-Control")).To(ContainSubstring("no-store"))
		Expect(r.JSON).To(HaveKeyWithValue("credential_type", "session_token"))
		Expect(r.JSON["credential"]).To(BeAssignableToTypeOf(""))
		Expect(len(r.JSON["credential"].(string))).To(BeNumerically(">=", 43), "a 256-bit token")
		Expect(r.JSON["scopes"]).To(BeAssignableToTypeOf([]any{}))
		Expect(r.JSON["scopes"]).NotTo(BeEmpty())
		Expect(r.JSON["scopes"]).To(HaveEach(BeAssignableToTypeOf("")))
		Expect(r.JSON).To(HaveKeyWithValue("verification_required", true))

		Expect(r.JSON["credential_expires"]).To(BeAssignableToTypeOf(""))
		expires, err := time.Parse(time.RFC3339, r.JSON["credential_expires"].(string))
		Expect(err).NotTo(HaveOccurred(), "credential_expires is an RFC 3339 time")
		Expect(expires).To(BeTemporally(">", time.Now()))

		capabilities := r.Object("capabilities")
		for _, name := range []string{"domainRestrictionsDefault", "dryRunSubmissions", "recipientVerificationResend", "recipientVerificationStatus"} {
			Expect(capabilities).To(HaveKeyWithValue(name, BeAssignableToTypeOf(true)), name)
		}

		By("the credential authenticating control-plane calls")
		Expect(f.Forms(r.JSON["credential"].(string))).To(BeEmpty())
	})

	It("refuses to create forms until the account email is verified", func() {
		email := UniqueEmail("unverified")
		token := f.Register(email, "")
		form := map[string]any{"name": "Contact", "recipientEmail": UniqueEmail("inbox")}

		By("creating a form before following the verification link")
		ExpectError(f.Post(token, "/v1/forms", form), http.StatusBadRequest, "verif")
		Expect(f.Forms(token)).To(BeEmpty())

		By("receiving the verification email")
		m := f.Mail.WaitForMail(email)
		Expect(m.From).To(Equal("formd@test.local"))
		Expect(m.Header.Get("To")).To(ContainSubstring(email))
		Expect(strings.ToLower(m.Subject)).To(ContainSubstring("verify"))
		link := Link(m)
		Expect(link).To(HavePrefix(f.URL + "/verify/"))

		By("following the link: opening it, then confirming with its page's button (issue 8: opening alone verifies nothing)")
		page := f.FollowLink(link)
		Expect(page.Status).To(Equal(http.StatusOK), "%s", page)
		Expect(page.Header.Get("Content-Type")).To(HavePrefix("text/html"))
		Expect(string(page.Body)).To(ContainSubstring(email))

		By("creating the form again")
		created, _ := f.CreateForm(token, form)
		Expect(f.Forms(token)).To(ConsistOf(HaveKeyWithValue("id", created["id"])))
	})

	It("does not recognise a made-up verification link", func() {
		r := f.Get("", "/verify/not-a-real-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
		Expect(r.Status).To(Equal(http.StatusNotFound), "%s", r)
	})

	DescribeTable("rejects a malformed registration with an ErrorResponse",
		func(body func() any, fragment string) {
			r := f.Post("", "/agent/auth", body())
			ExpectError(r, http.StatusBadRequest, fragment)
			Expect(r.JSON).NotTo(HaveKey("credential"))
		},
		Entry("a registration type other than user_claimed", func() any {
			return map[string]any{"email": UniqueEmail("agent"), "type": "identity_assertion"}
		}, "user_claimed"),
		Entry("a credential type other than session_token", func() any {
			return map[string]any{"email": UniqueEmail("agent"), "requested_credential_type": "api_key"}
		}, "session_token"),
		Entry("a password shorter than 12 characters", func() any {
			return map[string]any{"email": UniqueEmail("agent"), "password": "elevenchars"}
		}, "password"),
		Entry("an invalid email", func() any {
			return map[string]any{"email": "not-an-email", "password": DefaultPassword}
		}, "email"),
		Entry("no email", func() any {
			return map[string]any{"password": DefaultPassword}
		}, "email"),
		Entry("malformed JSON", func() any { return RawJSON(`{"email": "a@example.test",`) }, "JSON"),
		Entry("a JSON value that is not an object", func() any { return RawJSON(`["a@example.test"]`) }, "object"),
		Entry("an email of the wrong type", func() any { return RawJSON(`{"email": 5}`) }, "email"),
	)

	Context("when the email already has an account", func() {
		var token, email string
		var form map[string]any

		BeforeEach(func() {
			token, email = f.RegisteredVerifiedUser()
			form, _ = f.CreateForm(token, map[string]any{"name": "Existing", "recipientEmail": UniqueEmail("inbox")})
		})

		It("gives no credential without the password", func() {
			r := f.Post("", "/agent/auth", map[string]any{"email": email, "type": "user_claimed"})
			ExpectError(r, http.StatusBadRequest, "already exists")
			Expect(r.JSON).NotTo(HaveKey("credential"))
		})

		It("gives no credential with a wrong password", func() {
			r := f.Post("", "/agent/auth", map[string]any{"email": email, "password": "not the right password"})
			ExpectError(r, http.StatusBadRequest, "already exists")
			Expect(r.JSON).NotTo(HaveKey("credential"))
		})

		It("gives a new working session for the same account with the right password", func() {
			By("signing in with the account's password")
			r := f.Post("", "/agent/auth", map[string]any{"email": email, "password": DefaultPassword})
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			again, _ := r.JSON["credential"].(string)
			Expect(again).NotTo(BeEmpty())
			Expect(again).NotTo(Equal(token))
			Expect(r.JSON).To(HaveKeyWithValue("verification_required", false), "the account is already verified")

			By("listing the same account's forms with the new credential")
			Expect(f.Forms(again)).To(ConsistOf(HaveKeyWithValue("id", form["id"])))

			By("the first credential still working")
			Expect(f.Forms(token)).To(HaveLen(1))
		})

		It("matches the email case-insensitively", func() {
			r := f.Post("", "/agent/auth", map[string]any{"email": strings.ToUpper(email)})
			ExpectError(r, http.StatusBadRequest, "already exists")
			Expect(r.JSON).NotTo(HaveKey("credential"))
		})
	})

	It("signs in to an unverified account with its password, still asking for verification", func() {
		email := UniqueEmail("later")
		first := f.Register(email, DefaultPassword)
		r := f.Post("", "/agent/auth", map[string]any{"email": email, "password": DefaultPassword})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.JSON).To(HaveKeyWithValue("verification_required", true))
		Expect(r.JSON["credential"]).NotTo(Equal(first))

		By("the verification link from registration unlocking both sessions")
		f.VerifyAccount(email)
		form, _ := f.CreateForm(r.JSON["credential"].(string), map[string]any{"name": "Later", "recipientEmail": UniqueEmail("inbox")})
		Expect(f.Forms(first)).To(ConsistOf(HaveKeyWithValue("id", form["id"])))
	})

	It("never signs in to an account registered without a password", func() {
		email := UniqueEmail("nopassword")
		f.Register(email, "")
		r := f.Post("", "/agent/auth", map[string]any{"email": email, "password": DefaultPassword})
		ExpectError(r, http.StatusBadRequest, "already exists")
		Expect(r.JSON).NotTo(HaveKey("credential"))
	})
})
