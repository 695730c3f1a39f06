package features_test

import (
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Form settings validation", func() {
	var f *Formd
	BeforeEach(func() { f = shared })

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
			Entry("a wildcard allowedDomains entry without the advanced_domains entitlement",
				contactForm(map[string]any{"allowedDomains": []string{"*.example.com"}}), "allowedDomains", "wildcard", "*.example.com"),
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
			Entry("a broken regex in the second rule, named by its path",
				contactForm(map[string]any{"validation": map[string]any{"fields": []any{
					map[string]any{"field": "code", "regex": "[a-z]+"}, map[string]any{"field": "zip", "regex": "(x)"}}}}),
				"validation.fields[1].regex", "group"),
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
			Entry("a wildcard allowedDomains entry without the advanced_domains entitlement",
				map[string]any{"allowedDomains": []string{"www.example.com", "*.example.com"}}, "allowedDomains", "wildcard", "*.example.com"),
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
