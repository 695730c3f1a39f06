package features_test

import (
	"net/http"
	"time"

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

	Describe("recipient verification links", func() {
		var f *Formd
		BeforeEach(func() { f = shared })

		It("does not let a used link verify the address again after the recipient changed away and back", func() {
			token, _ := f.RegisteredVerifiedUser()
			first := UniqueEmail("first")
			form, _ := f.CreateForm(token, contactForm(map[string]any{"recipientEmail": first}))
			id := form["id"].(string)
			// Links verify with the POST of their page's button (issue 8, item 6).
			used := Link(f.Mail.WaitForMail(first))
			Expect(f.FollowLink(used).Status).To(Equal(http.StatusOK))

			By("changing the recipient to another address and back")
			other := UniqueEmail("other")
			Expect(f.Patch(token, "/v1/forms/"+id, map[string]any{"recipientEmail": other}).Status).To(Equal(http.StatusOK))
			Expect(f.Patch(token, "/v1/forms/"+id, map[string]any{"recipientEmail": first}).Status).To(Equal(http.StatusOK))
			Expect(f.FormByID(token, id)).To(HaveKeyWithValue("recipientVerified", false))

			By("the old, used link verifying nothing")
			r := f.ConfirmLink(used)
			Expect(r.Status).To(Equal(http.StatusBadRequest), "%s", r)
			Expect(string(r.Body)).To(ContainSubstring("already used"))
			Expect(f.FormByID(token, id)).To(HaveKeyWithValue("recipientVerified", false))

			By("the new link verifying the address")
			Expect(f.FollowLink(Link(f.Mail.WaitForMail(first))).Status).To(Equal(http.StatusOK))
			Expect(f.FormByID(token, id)).To(HaveKeyWithValue("recipientVerified", true))
			By("following it twice is still harmless")
			Expect(f.FollowLink(used).Status).To(Equal(http.StatusOK))
		})

		It("verifies only with the newest link once a new one was sent", func() {
			token, _ := f.RegisteredVerifiedUser()
			recipient := UniqueEmail("inbox")
			form, _ := f.CreateForm(token, contactForm(map[string]any{"recipientEmail": recipient}))
			id := form["id"].(string)
			older := Link(f.Mail.WaitForMail(recipient))
			Expect(f.Post(token, "/v1/forms/"+id+"/recipient-verifications", nil).Status).To(Equal(http.StatusCreated))
			newer := Link(f.Mail.WaitForMail(recipient))

			r := f.ConfirmLink(older) // links verify with the POST of their page's button (issue 8, item 6)
			Expect(r.Status).To(Equal(http.StatusBadRequest), "%s", r)
			Expect(string(r.Body)).To(ContainSubstring("newer verification email"))
			Expect(f.FollowLink(newer).Status).To(Equal(http.StatusOK))
			Expect(f.FormByID(token, id)).To(HaveKeyWithValue("recipientVerified", true))
		})
	})

	Describe("sender names", func() {
		It("delivers when the form's or the submitter's sender name holds quotes, backslashes or accents", func() {
			f := shared
			lf := f.LiveForm(map[string]any{"fromNameDefault": `Acme "Support`})
			for _, name := range []string{"", `Bob" <evil@evil.example>, "x`, `Zoë \ Büro`} {
				body := map[string]any{"access_key": lf.AccessKey, "message": "hello"}
				if name != "" {
					body["from_name"] = name
				}
				r := f.Post("", "/submit", body, fromExampleCom())
				Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
				m := f.Mail.WaitForMail(lf.Recipient)
				from, err := m.Header.AddressList("From")
				Expect(err).NotTo(HaveOccurred())
				Expect(from).To(HaveLen(1), "one sender, never an address smuggled in a name")
				Expect(from[0].Address).To(Equal("formd@test.local"))
				want := name
				switch name {
				case "":
					want = `Acme "Support`
				case `Zoë \ Büro`:
					want = "Zoë \uFF3C Büro" // see adapters/mail: a backslash cannot be encoded in a name with accents
				}
				Expect(from[0].Name).To(Equal(want))
			}
		})
	})

	Describe("the autoresponder", func() {
		It("is sent under the form's own name and Reply-To, whatever the submitter chooses", func() {
			f := shared
			lf := f.LiveForm(map[string]any{"fromNameDefault": "Acme Support",
				"autoresponder": map[string]any{"enabled": true, "subject": "Thanks", "message": "We got it."}})
			victim := UniqueEmail("victim")
			r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "email": victim,
				"from_name": "Your Bank - urgent", "replyto": "attacker@evil.example", "message": "hi"}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			m := f.Mail.WaitForMail(victim)
			from, err := m.Header.AddressList("From")
			Expect(err).NotTo(HaveOccurred())
			Expect(from).To(HaveLen(1))
			Expect(from[0].Name).To(Equal("Acme Support"))
			Expect(m.Header.Get("Reply-To")).To(BeEmpty(), "no replyToDefault: no Reply-To, and never the recipient's address")
			Expect(string(m.Raw)).NotTo(ContainSubstring(lf.Recipient))
		})

		It("goes to one address at most once an hour per form", func() {
			f := shared
			lf := f.LiveForm(map[string]any{"autoresponder": map[string]any{"enabled": true}})
			victim := UniqueEmail("victim")
			post := func() *Response {
				r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "email": victim, "message": "hi"}, fromExampleCom())
				Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
				return r
			}
			Expect(post().JSON).To(HaveKey("autoresponderDeliveryId"))
			second := post()
			Expect(second.JSON).NotTo(HaveKey("autoresponderDeliveryId"), "the submission is accepted, without an autoresponder")
			Expect(second.JSON).To(HaveKey("deliveryId"))
			mailWithID(f, lf.Recipient, second.JSON["deliveryId"].(string))
			Eventually(func() int { return len(f.Mail.To(victim)) }).WithTimeout(MailTimeout).Should(Equal(1))
			Consistently(func() int { return len(f.Mail.To(victim)) }).WithTimeout(300 * time.Millisecond).Should(Equal(1))
		})
	})

	Describe("the audit trail of submissions", func() {
		It("names an anonymous submitter by a keyed hash of its IP, never the address", func() {
			f := shared
			lf := f.LiveForm(nil)
			db := f.OpenDB()
			post := func() string {
				r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "hi"}, fromExampleCom())
				Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
				return r.RequestID()
			}
			first, second := post(), post()
			actor := func(requestID string) int {
				return db.Int(`SELECT count(*) FROM events WHERE event_type = 'submission.accepted.v1'
					AND data->>'requestId' = $1 AND metadata->'actor'->>'id' LIKE 'ip\_%' AND strpos(metadata::text, '127.0.0.1') = 0`, requestID)
			}
			Expect(actor(first)).To(Equal(1), "the submitter is a hash, and the IP is nowhere in the metadata")
			Expect(db.Int(`SELECT count(DISTINCT metadata->'actor'->>'id') FROM events WHERE event_type = 'submission.accepted.v1'
				AND data->>'requestId' IN ($1, $2)`, first, second)).To(Equal(1), "one address, one hash: abuse can be correlated")
		})
	})

	Describe("recipient verification resends", func() {
		It("are limited per form: a sixth mail in an hour is refused with 429 and Retry-After", func() {
			f := shared
			token, _ := f.RegisteredVerifiedUser()
			recipient := UniqueEmail("flooded")
			form, _ := f.CreateForm(token, contactForm(map[string]any{"recipientEmail": recipient}))
			id := form["id"].(string)
			path := "/v1/forms/" + id + "/recipient-verifications"
			for range 4 { // the creation's mail and four resends: five in the hour
				Expect(f.Post(token, path, nil).Status).To(Equal(http.StatusCreated))
			}
			r := f.Post(token, path, nil)
			ExpectError(r, http.StatusTooManyRequests, "Too many verification emails")
			Expect(r.Header.Get("Retry-After")).To(MatchRegexp(`^[0-9]+$`))
			Eventually(func() int { return len(f.Mail.To(recipient)) }).WithTimeout(MailTimeout).Should(Equal(5))
			Consistently(func() int { return len(f.Mail.To(recipient)) }).WithTimeout(300 * time.Millisecond).Should(Equal(5))
		})
	})
})
