package features_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Findings of the security review, as an attacker on the network would try them.
var _ = Describe("Security hardening", func() {
	Describe("POST /agent/auth", func() {
		It("limits password guesses per account and per address with 429 and Retry-After", func() {
			f := StartFormd("FORMD_AUTH_RATE=6") // 6 a minute per address, 3 per account
			email := UniqueEmail("victim")
			f.Register(email, DefaultPassword)

			By("guessing the victim's password until the account's limit answers")
			var last *Response
			for range 4 {
				last = f.Post("", "/agent/auth", map[string]any{"email": email, "password": "not the right passphrase"})
			}
			ExpectError(last, http.StatusTooManyRequests, "Too many")
			Expect(last.Header.Get("Retry-After")).NotTo(BeEmpty())

			By("the address's own limit stopping a sweep over other accounts")
			for range 2 {
				last = f.Post("", "/agent/auth", map[string]any{"email": UniqueEmail("sweep"), "password": "not the right passphrase"})
			}
			ExpectError(last, http.StatusTooManyRequests, "Too many")
		})
	})
})
