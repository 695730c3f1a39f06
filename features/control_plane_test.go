package features_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
)

const uuidPattern = `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`

// change matches one entry of an audit event's changes.
func change(field string, from, to any) types.GomegaMatcher {
	return SatisfyAll(HaveKeyWithValue("field", field), HaveKeyWithValue("from", orNil(from)), HaveKeyWithValue("to", orNil(to)))
}

// orNil matches nil with BeNil (Equal refuses to compare nils) and anything else with Equal.
func orNil(v any) any {
	if v == nil {
		return BeNil()
	}
	return v
}

// absent marks a field a request body leaves out.
type absentField struct{}

var absent = absentField{}

// contactForm is a valid CreateForm body with overrides applied; a value of
// absent removes the field.
func contactForm(overrides map[string]any) map[string]any {
	body := map[string]any{"name": "Contact", "recipientEmail": UniqueEmail("inbox")}
	for k, v := range overrides {
		if v == absent {
			delete(body, k)
		} else {
			body[k] = v
		}
	}
	return body
}

// rule is a validation body with one field rule.
func rule(r map[string]any) map[string]any {
	return map[string]any{"fields": []any{r}}
}

var _ = Describe("Form control plane", func() {
	var f *Formd
	BeforeEach(func() { f = shared })

	It("lets a new account create, list, change and audit a form", func() {
		By("registering an account")
		email := UniqueEmail("owner")
		token := f.Register(email, DefaultPassword)

		By("following the verification link in the mail the account received")
		f.VerifyAccount(email)

		By("creating a form")
		recipient := UniqueEmail("inbox")
		created := f.Post(token, "/v1/forms", map[string]any{
			"name": "Contact", "recipientEmail": recipient, "allowedDomains": []string{"www.example.com"},
		})
		Expect(created.Status).To(Equal(http.StatusCreated), "%s", created)
		form := created.Object("form")
		id, _ := form["id"].(string)
		Expect(id).To(MatchRegexp(uuidPattern))
		accessKey, _ := form["accessKey"].(string)
		prefix, _ := form["accessKeyPrefix"].(string)
		Expect(prefix).NotTo(BeEmpty())
		Expect(len(prefix)).To(BeNumerically("<", len(accessKey)))
		Expect(accessKey).To(HavePrefix(prefix))
		Expect(form).To(HaveKeyWithValue("name", "Contact"))
		Expect(form).To(HaveKeyWithValue("recipientEmail", recipient))
		Expect(form).To(HaveKeyWithValue("recipientVerified", false))
		Expect(form).To(HaveKeyWithValue("fromNameDefault", "Notifications"))
		Expect(form).To(HaveKeyWithValue("allowedDomains", ConsistOf("www.example.com")))
		Expect(form).To(HaveKeyWithValue("workspaceId", MatchRegexp(uuidPattern)))

		By("listing it, without its full access key")
		listed := f.FormByID(token, id)
		Expect(listed).To(HaveKeyWithValue("name", "Contact"))
		Expect(listed).To(HaveKeyWithValue("accessKeyPrefix", prefix))
		Expect(listed).NotTo(HaveKey("accessKey"))
		Expect(f.Forms(token)).To(HaveLen(1))

		By("a second account seeing none of the first account's forms")
		other, _ := f.RegisteredVerifiedUser()
		Expect(f.Forms(other)).To(BeEmpty())
		f.CreateForm(other, contactForm(nil))
		Expect(f.Forms(other)).To(ConsistOf(Not(HaveKeyWithValue("id", id))))
		Expect(f.Forms(token)).To(ConsistOf(HaveKeyWithValue("id", id)))

		By("changing it")
		patched := f.Patch(token, "/v1/forms/"+id, map[string]any{"name": "Contact us", "subjectDefault": "New message"})
		Expect(patched.Status).To(Equal(http.StatusOK), "%s", patched)
		Expect(patched.Object("form")).To(SatisfyAll(
			HaveKeyWithValue("id", id),
			HaveKeyWithValue("name", "Contact us"),
			HaveKeyWithValue("subjectDefault", "New message"),
			HaveKeyWithValue("recipientEmail", recipient),
			HaveKeyWithValue("allowedDomains", ConsistOf("www.example.com")),
		))
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("name", "Contact us"))

		By("changing it again under a request id chosen by the caller")
		requestID := "story-" + randomHex(8)
		renamed := f.Patch(token, "/v1/forms/"+id, map[string]any{"fromNameDefault": "Website"}, Header("X-Request-Id", requestID))
		Expect(renamed.Status).To(Equal(http.StatusOK), "%s", renamed)
		Expect(renamed.RequestID()).To(Equal(requestID))

		By("reading its audit trail")
		events := f.Events(token, id)
		Expect(events).To(HaveLen(3))
		for i, e := range events {
			Expect(e).To(HaveKeyWithValue("version", BeNumerically("==", i+1)), "event %d", i)
			actor, _ := e["actor"].(map[string]any)
			Expect(actor).To(HaveKeyWithValue("type", "session"), "event %d", i)
			Expect(HashPrefixOf(token, actor["id"].(string))).To(BeTrue(), "the actor id is a prefix of the session token's hash, not %v", actor["id"])
			Expect(token).NotTo(ContainSubstring(actor["id"].(string)))
			_, err := time.Parse(time.RFC3339Nano, e["recordedAt"].(string))
			Expect(err).NotTo(HaveOccurred(), "recordedAt of event %d", i)
		}

		Expect(events[0]).To(HaveKeyWithValue("type", "form.created.v1"))
		Expect(events[0]).To(HaveKeyWithValue("requestId", created.RequestID()))
		Expect(events[0]["changes"]).To(ContainElements(
			change("name", nil, "Contact"),
			change("recipientEmail", nil, recipient),
			change("fromNameDefault", nil, "Notifications"),
		))

		Expect(events[1]).To(HaveKeyWithValue("type", "form.settings_changed.v1"))
		Expect(events[1]).To(HaveKeyWithValue("requestId", patched.RequestID()))
		Expect(events[1]["changes"]).To(ConsistOf(
			change("name", "Contact", "Contact us"),
			change("subjectDefault", "", "New message"),
		))

		Expect(events[2]).To(HaveKeyWithValue("type", "form.settings_changed.v1"))
		Expect(events[2]).To(HaveKeyWithValue("requestId", requestID))
		Expect(events[2]["changes"]).To(ConsistOf(change("fromNameDefault", "Notifications", "Website")))

		By("a patch that changes nothing recording no event")
		same := f.Patch(token, "/v1/forms/"+id, map[string]any{"name": "Contact us", "subjectDefault": nil})
		Expect(same.Status).To(Equal(http.StatusOK), "%s", same)
		Expect(same.Object("form")).To(HaveKeyWithValue("subjectDefault", "New message"), "null keeps the value")
		Expect(f.Events(token, id)).To(HaveLen(3))
	})

	It("keeps a gapless audit trail when one form is changed concurrently", func() {
		token, _ := f.RegisteredVerifiedUser()
		form, _ := f.CreateForm(token, contactForm(nil))
		id := form["id"].(string)

		By("sending 10 PATCH requests at once")
		const writers = 10
		statuses := make(chan int, writers)
		var wg sync.WaitGroup
		for i := range writers {
			wg.Add(1)
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				statuses <- f.Patch(token, "/v1/forms/"+id, map[string]any{"name": fmt.Sprintf("Name %d", i)}).Status
			}()
		}
		wg.Wait()
		close(statuses)
		for status := range statuses {
			Expect(status).To(Equal(http.StatusOK))
		}

		By("reading one event per change, each starting where the previous one ended")
		events := f.Events(token, id)
		Expect(events).To(HaveLen(writers + 1))
		name := "Contact"
		for i, e := range events {
			Expect(e).To(HaveKeyWithValue("version", BeNumerically("==", i+1)))
			if i == 0 {
				continue
			}
			Expect(e["changes"]).To(ConsistOf(change("name", name, HavePrefix("Name "))), "event %d", i)
			name = e["changes"].([]any)[0].(map[string]any)["to"].(string)
		}
		Expect(f.FormByID(token, id)).To(SatisfyAll(
			HaveKeyWithValue("name", name),
			HaveKeyWithValue("version", BeNumerically("==", writers+1)),
		))
	})

	Describe("authentication", func() {
		It("accepts the auth.session_token cookie like the bearer token", func() {
			token, _ := f.RegisteredVerifiedUser()
			cookie := SessionCookie(token)

			By("creating a form with the cookie")
			created := f.Do(http.MethodPost, "/v1/forms", contactForm(nil), cookie)
			Expect(created.Status).To(Equal(http.StatusCreated), "%s", created)
			id := created.Object("form")["id"].(string)

			By("listing and changing it with the cookie")
			listed := f.Do(http.MethodGet, "/v1/forms", nil, cookie)
			Expect(listed.Status).To(Equal(http.StatusOK), "%s", listed)
			Expect(listed.Array("forms")).To(ConsistOf(HaveKeyWithValue("id", id)))
			patched := f.Do(http.MethodPatch, "/v1/forms/"+id, map[string]any{"name": "Cookie"}, cookie)
			Expect(patched.Status).To(Equal(http.StatusOK), "%s", patched)

			By("the bearer token seeing the same form and the same actor in the audit trail")
			Expect(f.FormByID(token, id)).To(HaveKeyWithValue("name", "Cookie"))
			events := f.Events(token, id)
			Expect(events).To(HaveLen(2))
			Expect(events[1]["actor"]).To(Equal(events[0]["actor"]))
		})

		Describe("without a valid credential", Ordered, ContinueOnFailure, func() {
			var token, id string

			BeforeAll(func() {
				f = shared
				token, _ = f.RegisteredVerifiedUser()
				form, _ := f.CreateForm(token, contactForm(nil))
				id = form["id"].(string)
			})

			DescribeTable("answers 401 with an ErrorResponse and changes nothing",
				func(method, path string, body any, credential http.Header) {
					path = strings.ReplaceAll(path, "{id}", id)
					r := f.Do(method, path, body, credential)
					ExpectError(r, http.StatusUnauthorized)
					Expect(f.Forms(token)).To(ConsistOf(HaveKeyWithValue("name", "Contact")))
					Expect(f.Events(token, id)).To(HaveLen(1))
				},
				unauthenticatedEntries(),
			)
		})
	})

	Describe("visibility", Ordered, ContinueOnFailure, func() {
		var owner, stranger, id, recipient string

		BeforeAll(func() {
			f = shared
			owner, _ = f.RegisteredVerifiedUser()
			stranger, _ = f.RegisteredVerifiedUser()
			recipient = UniqueEmail("inbox")
			form, _ := f.CreateForm(owner, contactForm(map[string]any{"recipientEmail": recipient}))
			id = form["id"].(string)
		})

		DescribeTable("answers 404 for a form the caller cannot see",
			func(method, route string, body any, formID func() string) {
				r := f.Do(method, strings.ReplaceAll(route, "{id}", formID()), body, Bearer(stranger))
				ExpectError(r, http.StatusNotFound)
				Expect(f.FormByID(owner, id)).To(HaveKeyWithValue("name", "Contact"))
				Expect(f.Events(owner, id)).To(HaveLen(1))
			},
			visibilityEntries(
				[]string{"another account's form", "a random uuid", "an id that is not a uuid", "an upper-case random uuid"},
				[]func() string{
					func() string { return id },
					func() string { return "5f0c2a43-93c1-4f3e-9b7e-0d7d2f6f1a2b" },
					func() string { return "not-a-uuid" },
					func() string { return "5F0C2A43-93C1-4F3E-9B7E-0D7D2F6F1A2B" },
				},
			),
		)

		It("still shows the form to its owner", func() {
			Expect(f.Get(owner, "/v1/forms/"+id+"/events").Status).To(Equal(http.StatusOK))
			Expect(f.Get(owner, "/v1/forms/"+id+"/recipient-verification").Status).To(Equal(http.StatusOK))
			Expect(f.Get(owner, "/v1/forms/"+strings.ToUpper(id)+"/events").Status).To(Equal(http.StatusOK), "ids are case-insensitive")
		})
	})

	Describe("form validation", func() {
		Describe("of POST /v1/forms", Ordered, ContinueOnFailure, func() {
			var token string
			BeforeAll(func() {
				f = shared
				token, _ = f.RegisteredVerifiedUser()
			})

			DescribeTable("answers 400 naming the field and creates nothing",
				func(body any, fragments ...string) {
					ExpectError(f.Post(token, "/v1/forms", body), http.StatusBadRequest, fragments...)
					Expect(f.Forms(token)).To(BeEmpty())
				},
				Entry("malformed JSON", RawJSON(`{"name": "Contact", "recipientEmail": `), "JSON"),
				Entry("an empty body", RawJSON(``), "JSON"),
				Entry("a body that is not JSON", RawBody{ContentType: "text/plain", Data: []byte("name=Contact")}, "application/json"),
				Entry("name of the wrong type", RawJSON(`{"name": 5, "recipientEmail": "inbox@example.test"}`), "name"),
				Entry("validation of the wrong type", RawJSON(`{"name": "Contact", "recipientEmail": "inbox@example.test", "validation": []}`), "validation"),
				Entry("no name", contactForm(map[string]any{"name": absent}), "name"),
				Entry("a blank name", contactForm(map[string]any{"name": "   "}), "name"),
				Entry("no recipientEmail", contactForm(map[string]any{"recipientEmail": absent}), "recipientEmail"),
				Entry("an invalid recipientEmail", contactForm(map[string]any{"recipientEmail": "not-an-email"}), "recipientEmail"),
				Entry("a recipientEmail with a display name", contactForm(map[string]any{"recipientEmail": "Inbox <inbox@example.test>"}), "recipientEmail"),
				// formd bug: this message names the pattern but not the allowedDomains
				// field (see the suite's bug report); add "allowedDomains" once it does.
				Entry("a wildcard allowedDomains entry without the advanced_domains entitlement",
					contactForm(map[string]any{"allowedDomains": []string{"*.example.com"}}), "wildcard", "*.example.com"),
				Entry("an allowedDomains entry that is a URL",
					contactForm(map[string]any{"allowedDomains": []string{"https://example.com/"}}), "allowedDomains"),
				Entry("a replyToMode outside submitter, default, none",
					contactForm(map[string]any{"replyToMode": "always"}), "replyToMode"),
				Entry("a redirectDefault that is not https",
					contactForm(map[string]any{"redirectDefault": "http://example.com/thanks"}), "redirectDefault"),
				Entry("a workspaceId that is not a uuid",
					contactForm(map[string]any{"workspaceId": "default"}), "workspaceId"),
				Entry("a validation rule whose minLength is greater than its maxLength",
					contactForm(map[string]any{"validation": rule(map[string]any{"field": "message", "minLength": 10, "maxLength": 3})}), "minLength"),
				Entry("a negative maxLength",
					contactForm(map[string]any{"validation": rule(map[string]any{"field": "message", "maxLength": -1})}), "maxLength"),
				Entry("a regex with a group",
					contactForm(map[string]any{"validation": rule(map[string]any{"field": "code", "regex": "(a)"})}), "regex", "group"),
				Entry("a regex with wildcard repetition",
					contactForm(map[string]any{"validation": rule(map[string]any{"field": "code", "regex": ".*"})}), "regex", "wildcard"),
				Entry("a regex with alternation",
					contactForm(map[string]any{"validation": rule(map[string]any{"field": "code", "regex": "a|b"})}), "regex", "alternation"),
				Entry("a rule type outside email, url, number",
					contactForm(map[string]any{"validation": rule(map[string]any{"field": "phone", "type": "phone"})}), "type", "phone"),
				Entry("a rule without a field name",
					contactForm(map[string]any{"validation": rule(map[string]any{"required": true})}), "field"),
			)
		})

		Describe("of PATCH /v1/forms/{id}", Ordered, ContinueOnFailure, func() {
			var token, id string
			BeforeAll(func() {
				f = shared
				token, _ = f.RegisteredVerifiedUser()
				form, _ := f.CreateForm(token, contactForm(nil))
				id = form["id"].(string)
			})

			DescribeTable("answers 400 naming the field and changes nothing",
				func(body any, fragments ...string) {
					ExpectError(f.Patch(token, "/v1/forms/"+id, body), http.StatusBadRequest, fragments...)
					Expect(f.FormByID(token, id)).To(SatisfyAll(
						HaveKeyWithValue("name", "Contact"),
						HaveKeyWithValue("allowedDomains", BeEmpty()),
						HaveKeyWithValue("validation", HaveKeyWithValue("fields", BeEmpty())),
						HaveKeyWithValue("version", BeNumerically("==", 1)),
					))
					Expect(f.Events(token, id)).To(HaveLen(1))
				},
				Entry("malformed JSON", RawJSON(`{"name": `), "JSON"),
				Entry("name of the wrong type", RawJSON(`{"name": 5}`), "name"),
				Entry("a blank name", map[string]any{"name": ""}, "name"),
				Entry("an invalid recipientEmail", map[string]any{"recipientEmail": "inbox@"}, "recipientEmail"),
				// formd bug: see the POST table; add "allowedDomains" once it is named.
				Entry("a wildcard allowedDomains entry without the advanced_domains entitlement",
					map[string]any{"allowedDomains": []string{"www.example.com", "*.example.com"}}, "wildcard", "*.example.com"),
				Entry("a move to another workspace", map[string]any{"workspaceId": "5f0c2a43-93c1-4f3e-9b7e-0d7d2f6f1a2b"}, "workspace"),
				Entry("a validation rule whose minLength is greater than its maxLength",
					map[string]any{"validation": rule(map[string]any{"field": "message", "minLength": 5, "maxLength": 4})}, "minLength"),
				Entry("a regex with a group",
					map[string]any{"validation": rule(map[string]any{"field": "code", "regex": "(a)"})}, "regex"),
				Entry("a regex with wildcard repetition",
					map[string]any{"validation": rule(map[string]any{"field": "code", "regex": ".*"})}, "regex"),
				Entry("a rule type outside email, url, number",
					map[string]any{"validation": rule(map[string]any{"field": "phone", "type": "phone"})}, "type"),
			)
		})

		It("accepts valid validation rules and echoes them", func() {
			token, _ := f.RegisteredVerifiedUser()
			rules := map[string]any{"fields": []any{
				map[string]any{"field": "email", "required": true, "type": "email"},
				map[string]any{"field": "message", "minLength": 2, "maxLength": 500},
				map[string]any{"field": "code", "regex": "^[A-Z]{3}-[0-9]+$"},
			}}
			form, _ := f.CreateForm(token, contactForm(map[string]any{"validation": rules}))
			Expect(form["validation"]).To(HaveKeyWithValue("fields", HaveLen(3)))
			Expect(f.FormByID(token, form["id"].(string))["validation"]).To(Equal(form["validation"]))
		})

		It("refuses a body over 256 KiB with 413", func() {
			token, _ := f.RegisteredVerifiedUser()
			huge := contactForm(map[string]any{"subjectDefault": strings.Repeat("a", 300<<10)})
			ExpectError(f.Post(token, "/v1/forms", huge), http.StatusRequestEntityTooLarge)
			Expect(f.Forms(token)).To(BeEmpty())
		})

		It("puts forms in the caller's own workspaces only", func() {
			token, _ := f.RegisteredVerifiedUser()
			first, _ := f.CreateForm(token, contactForm(nil))
			defaultWorkspace := first["workspaceId"].(string)

			By("creating a form in a new named workspace")
			clients, _ := f.CreateForm(token, contactForm(map[string]any{"workspaceName": "Clients"}))
			Expect(clients["workspaceId"]).To(MatchRegexp(uuidPattern))
			Expect(clients["workspaceId"]).NotTo(Equal(defaultWorkspace))

			By("creating forms in existing workspaces by id")
			again, _ := f.CreateForm(token, contactForm(map[string]any{"workspaceId": clients["workspaceId"]}))
			Expect(again["workspaceId"]).To(Equal(clients["workspaceId"]))
			back, _ := f.CreateForm(token, contactForm(map[string]any{"workspaceId": defaultWorkspace}))
			Expect(back["workspaceId"]).To(Equal(defaultWorkspace))

			By("another account being refused the first account's workspace")
			other, _ := f.RegisteredVerifiedUser()
			ExpectError(f.Post(other, "/v1/forms", contactForm(map[string]any{"workspaceId": defaultWorkspace})), http.StatusBadRequest, "workspaceId")
			Expect(f.Forms(other)).To(BeEmpty())
		})

		It("accepts wildcard allowed domains once the advanced_domains entitlement is granted", func() {
			token, email := f.RegisteredVerifiedUser()
			wildcard := contactForm(map[string]any{"allowedDomains": []string{"*.example.com"}})

			By("being refused without the entitlement")
			ExpectError(f.Post(token, "/v1/forms", wildcard), http.StatusBadRequest)
			plain, _ := f.CreateForm(token, contactForm(map[string]any{"allowedDomains": []string{"www.example.com"}}))

			By("an operator granting advanced_domains")
			f.Grant(email, "advanced_domains")

			By("creating and patching forms with wildcard patterns")
			form, _ := f.CreateForm(token, wildcard)
			Expect(form).To(HaveKeyWithValue("allowedDomains", ConsistOf("*.example.com")))
			r := f.Patch(token, "/v1/forms/"+plain["id"].(string), map[string]any{"allowedDomains": []string{"www.example.com", "*.example.org"}})
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			Expect(r.Object("form")).To(HaveKeyWithValue("allowedDomains", ConsistOf("www.example.com", "*.example.org")))

			By("another account still being refused")
			other, _ := f.RegisteredVerifiedUser()
			ExpectError(f.Post(other, "/v1/forms", wildcard), http.StatusBadRequest)
		})
	})

	Describe("recipient verification", func() {
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

			By("the recipient following the link")
			page := f.Get("", Link(m))
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
			Expect(f.Get("", Link(m)).Status).To(Equal(http.StatusOK))
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
			Expect(f.Get("", Link(second)).Status).To(Equal(http.StatusOK))
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
			page := f.Get("", Link(oldMail))
			Expect(page.Status).To(Equal(http.StatusBadRequest), "%s", page)
			Expect(f.FormByID(token, id)).To(HaveKeyWithValue("recipientVerified", false))
			Expect(verificationOf()).To(HaveKeyWithValue("status", "pending"))
		})
	})

	Describe("discovery", func() {
		It("serves registration instructions at /auth.md", func() {
			r := f.Get("", "/auth.md")
			Expect(r.Status).To(Equal(http.StatusOK))
			Expect(r.Header.Get("Content-Type")).To(HavePrefix("text/markdown"))
			Expect(string(r.Body)).To(ContainSubstring("/agent/auth"))
		})

		It("serves an API catalog as a linkset", func() {
			r := f.Get("", "/.well-known/api-catalog")
			Expect(r.Status).To(Equal(http.StatusOK))
			Expect(r.Header.Get("Content-Type")).To(HavePrefix("application/linkset+json"))
			linkset := r.Array("linkset")
			Expect(linkset).NotTo(BeEmpty())
			entry, _ := linkset[0].(map[string]any)
			Expect(entry["anchor"]).To(BeAssignableToTypeOf(""))
			Expect(absoluteURL(entry["anchor"].(string))).To(BeTrue(), "anchor %v", entry["anchor"])
			for _, rel := range []string{"service-desc", "service-doc", "service-meta", "status"} {
				links, ok := entry[rel].([]any)
				if !ok {
					continue
				}
				for _, l := range links {
					Expect(l).To(HaveKeyWithValue("href", Satisfy(func(h any) bool { s, _ := h.(string); return absoluteURL(s) })), rel)
				}
			}
		})

		It("describes the control plane as an OAuth protected resource", func() {
			r := f.Get("", "/.well-known/oauth-protected-resource")
			Expect(r.Status).To(Equal(http.StatusOK))
			Expect(r.Header.Get("Content-Type")).To(HavePrefix("application/json"))
			Expect(r.JSON["resource"]).To(Satisfy(func(v any) bool { s, _ := v.(string); return absoluteURL(s) }))
			Expect(r.JSON["resource_name"]).To(And(BeAssignableToTypeOf(""), Not(BeEmpty())))
			Expect(r.Array("authorization_servers")).To(And(Not(BeEmpty()), HaveEach(Satisfy(func(v any) bool { s, _ := v.(string); return absoluteURL(s) }))))
			Expect(r.Array("scopes_supported")).To(HaveEach(BeAssignableToTypeOf("")))
		})

		It("serves authorization server metadata as a JSON object", func() {
			r := f.Get("", "/.well-known/oauth-authorization-server")
			Expect(r.Status).To(Equal(http.StatusOK))
			Expect(r.Header.Get("Content-Type")).To(HavePrefix("application/json"))
			Expect(r.JSON).NotTo(BeNil(), "%s", r)
		})

		It("answers GET /healthz with 200 while the database is reachable", func() {
			Expect(f.Get("", "/healthz").Status).To(Equal(http.StatusOK))
		})
	})
})

func absoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.IsAbs() && u.Host != ""
}

// unauthenticatedEntries crosses every control-plane route with every kind
// of missing or invalid credential.
func unauthenticatedEntries() []TableEntry {
	routes := []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, "/v1/forms", nil},
		{http.MethodPost, "/v1/forms", map[string]any{"name": "Intruder", "recipientEmail": "intruder@example.test"}},
		{http.MethodPatch, "/v1/forms/{id}", map[string]any{"name": "Intruder"}},
		{http.MethodGet, "/v1/forms/{id}/events", nil},
		{http.MethodGet, "/v1/forms/{id}/recipient-verification", nil},
		{http.MethodPost, "/v1/forms/{id}/recipient-verifications", nil},
	}
	credentials := []struct {
		name   string
		header http.Header
	}{
		{"no credential", nil},
		{"a garbage bearer token", Bearer("fds_not-a-real-session-token-aaaaaaaaaaaaaaaaaaaaa")},
		{"an empty bearer token", Header("Authorization", "Bearer ")},
		{"basic authentication", Header("Authorization", "Basic dXNlcjpwYXNzd29yZA==")},
		{"an unknown session cookie", SessionCookie("fds_not-a-real-session-token-aaaaaaaaaaaaaaaaaaaaa")},
	}
	var entries []TableEntry
	for _, r := range routes {
		for _, c := range credentials {
			entries = append(entries, Entry(r.method+" "+r.path+" with "+c.name, r.method, r.path, r.body, c.header))
		}
	}
	return entries
}

// visibilityEntries crosses every form route with the given unseeable ids.
func visibilityEntries(names []string, ids []func() string) []TableEntry {
	routes := []struct {
		method, path string
		body         any
	}{
		{http.MethodPatch, "/v1/forms/{id}", map[string]any{"name": "Hijacked"}},
		{http.MethodGet, "/v1/forms/{id}/events", nil},
		{http.MethodGet, "/v1/forms/{id}/recipient-verification", nil},
		{http.MethodPost, "/v1/forms/{id}/recipient-verifications", nil},
	}
	var entries []TableEntry
	for i, name := range names {
		for _, r := range routes {
			entries = append(entries, Entry(r.method+" "+r.path+" of "+name, r.method, r.path, r.body, ids[i]))
		}
	}
	return entries
}
