package features_test

import (
	"net/http"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Registration answers "already exists" for an address with an account (the
// spec's contract gives a new account its session at once, so the answers
// cannot be the same): an accepted risk, made slow to exploit.
var _ = Describe("Account enumeration", func() {
	It("limits, per network and alike for every address, the registrations that tell whether an address has an account, through the API and the dashboard together", func() {
		own := StartFormd("FORMD_REGISTER_RATE=3")
		taken := UniqueEmail("taken")

		By("a new account, an \"already exists\" and a dashboard registration spending the 3")
		own.Register(taken, DefaultPassword)
		ExpectError(own.Post("", "/agent/auth", map[string]any{"email": taken}), http.StatusBadRequest, "already exists")
		By("a sign-in with the account's password telling nothing, so not counted")
		Expect(own.Post("", "/agent/auth", map[string]any{"email": taken, "password": DefaultPassword}).Status).To(Equal(http.StatusOK))
		dashboard := newDashboardClient(own, "")
		register := func(email string) *http.Response {
			return dashboard.post("/dashboard/register", url.Values{"csrf_token": {dashboard.csrfOf("/dashboard/register")},
				"email": {email}, "password": {DefaultPassword}})
		}
		Expect(register(UniqueEmail("new")).StatusCode).To(Equal(http.StatusSeeOther))

		By("the next probe refused the same way for an address with an account and one without")
		dashboard = newDashboardClient(own, "")
		forTaken := own.Post("", "/agent/auth", map[string]any{"email": taken})
		forNew := own.Post("", "/agent/auth", map[string]any{"email": UniqueEmail("new")})
		for _, r := range []*Response{forTaken, forNew} {
			ExpectError(r, http.StatusTooManyRequests, "Too many registrations from this network")
			Expect(r.Header.Get("Retry-After")).To(MatchRegexp(`^[0-9]+$`))
		}
		Expect(forTaken.JSON["message"]).To(Equal(forNew.JSON["message"]))
		page := register(taken)
		Expect(page.StatusCode).To(Equal(http.StatusTooManyRequests))
		Expect(readBody(page)).To(SatisfyAll(ContainSubstring("Too many registrations from this network"), Not(ContainSubstring("already exists"))))
	})
})
