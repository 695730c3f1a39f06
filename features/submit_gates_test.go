package features_test

import (
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
)

// fromOrigin is the Origin header of a browser post from site (https://host).
func fromOrigin(site string) http.Header { return Header("Origin", site) }

// fieldError matches one SubmissionValidationError.
func fieldError(field, rule string) types.GomegaMatcher {
	return SatisfyAll(
		HaveLen(3),
		HaveKeyWithValue("field", field),
		HaveKeyWithValue("rule", rule),
		HaveKeyWithValue("message", ContainSubstring(field)),
	)
}

var _ = Describe("Submission gates", func() {
	var f *Formd
	BeforeEach(func() { f = shared })

	hello := func() map[string]any { return map[string]any{"message": "Hello"} }
	accepted := func(r *Response) {
		GinkgoHelper()
		expectSubmissionAccepted(r, hello())
	}

	Describe("recipient_verified", func() {
		It("refuses live submissions until the recipient follows the verification link", func() {
			sf := unverifiedSubmitForm(f, nil)

			By("posting before the recipient is verified")
			r := f.Post("", sf.Path(), hello(), fromOrigin("https://example.com"))
			ExpectError(r, http.StatusBadRequest, "not verified", "before submissions are accepted")
			Expect(r.JSON).NotTo(HaveKey("deliveryId"))

			By("a dry run still passing")
			dry := f.Post("", sf.Path(), hello(), fromOrigin("https://example.com"), Header("X-Service-Dry-Run", "true"))
			Expect(dry.Status).To(Equal(http.StatusOK), "%s", dry)
			Expect(dry.JSON).To(HaveKeyWithValue("dryRun", true))

			By("the recipient following the link")
			f.VerifyRecipient(sf.Recipient)

			By("posting again")
			accepted(f.Post("", sf.Path(), hello(), fromOrigin("https://example.com")))
		})
	})

	Describe("origin", func() {
		Context("when the form lists allowedDomains", Ordered, ContinueOnFailure, func() {
			var sf *submitForm
			BeforeAll(func() {
				f = shared
				sf = verifiedSubmitForm(f, map[string]any{"allowedDomains": []string{"example.com"}})
			})

			DescribeTable("accepts a post from a listed host",
				func(headers http.Header) { accepted(f.Post("", sf.Path(), hello(), headers)) },
				Entry("by its Origin", fromOrigin("https://example.com")),
				Entry("by its Origin with a port", fromOrigin("https://example.com:8443")),
				Entry("by its Referer when there is no Origin", Header("Referer", "https://example.com/contact")),
			)

			DescribeTable("refuses a post from another host",
				func(headers http.Header) {
					ExpectError(f.Post("", sf.Path(), hello(), headers), http.StatusBadRequest, "allowedDomains")
				},
				Entry("by its Origin", fromOrigin("https://evil.test")),
				Entry("a subdomain of a listed exact host", fromOrigin("https://shop.example.com")),
				Entry("a host that merely ends like a listed one", fromOrigin("https://notexample.com")),
				Entry("by its Referer when there is no Origin", Header("Referer", "https://evil.test/contact")),
				Entry("by its Origin, even with a listed Referer", http.Header{
					"Origin": {"https://evil.test"}, "Referer": {"https://example.com/contact"}}),
				Entry("Origin: null (a sandboxed or file:// page)", fromOrigin("null")),
			)
		})

		Context("when the form lists no allowedDomains", Ordered, ContinueOnFailure, func() {
			var sf *submitForm
			BeforeAll(func() {
				f = shared
				sf = verifiedSubmitForm(f, nil)
			})

			DescribeTable("accepts a post from any site",
				func(headers http.Header) { accepted(f.Post("", sf.Path(), hello(), headers)) },
				Entry("https://evil.test", fromOrigin("https://evil.test")),
				Entry("http://localhost:3000", fromOrigin("http://localhost:3000")),
				Entry("Origin: null", fromOrigin("null")),
			)
		})

		It("applies a tightened allowedDomains to the very next post", func() {
			sf := verifiedSubmitForm(f, nil)
			By("accepting a post from any site while the list is empty")
			accepted(f.Post("", sf.Path(), hello(), fromOrigin("https://evil.test")))

			By("the owner listing example.com only")
			sf.Patch(map[string]any{"allowedDomains": []string{"example.com"}})

			By("refusing the other site at once, and accepting example.com")
			ExpectError(f.Post("", sf.Path(), hello(), fromOrigin("https://evil.test")), http.StatusBadRequest, "allowedDomains")
			accepted(f.Post("", sf.Path(), hello(), fromOrigin("https://example.com")))
		})

		Context("with a *.example.com pattern (advanced_domains)", Ordered, ContinueOnFailure, func() {
			var sf *submitForm
			BeforeAll(func() {
				f = shared
				sf = verifiedSubmitForm(f, map[string]any{"allowedDomains": []string{"*.example.com"}}, "advanced_domains")
			})

			DescribeTable("accepts subdomains",
				func(origin string) { accepted(f.Post("", sf.Path(), hello(), fromOrigin(origin))) },
				Entry("shop.example.com", "https://shop.example.com"),
				Entry("a deeper subdomain", "https://eu.shop.example.com"),
			)

			DescribeTable("refuses other hosts",
				func(origin string) {
					ExpectError(f.Post("", sf.Path(), hello(), fromOrigin(origin)), http.StatusBadRequest, "allowedDomains")
				},
				Entry("example.com itself", "https://example.com"),
				Entry("a host that merely ends like the pattern", "https://shopexample.com"),
				Entry("another domain", "https://evil.test"),
			)
		})
	})

	Describe("server_side", func() {
		It("needs the entitlement and the sender's exact IP on allowedSenderIps", func() {
			sf := verifiedSubmitForm(f, nil)
			serverSide := func(headers ...http.Header) *Response {
				GinkgoHelper()
				return f.Post("", sf.Path(), hello(), headers...) // no Origin, no Referer
			}

			By("refusing a post without Origin or Referer while the account lacks the entitlement")
			ExpectError(serverSide(), http.StatusBadRequest, "server-side", "entitlement")

			By("an operator granting server_side_submissions")
			f.Grant(sf.Owner, "server_side_submissions")

			By("still refusing while allowedSenderIps is empty")
			ExpectError(serverSide(), http.StatusBadRequest, "allowedSenderIps")

			By("still refusing while allowedSenderIps lists another address, even one claimed by X-Forwarded-For")
			sf.Patch(map[string]any{"allowedSenderIps": []string{"192.0.2.10"}})
			ExpectError(serverSide(), http.StatusBadRequest, "allowedSenderIps")
			ExpectError(serverSide(Header("X-Forwarded-For", "192.0.2.10")), http.StatusBadRequest, "allowedSenderIps")

			By("accepting it once 127.0.0.1 is on allowedSenderIps")
			sf.Patch(map[string]any{"allowedSenderIps": []string{"192.0.2.10", "127.0.0.1"}})
			accepted(serverSide())

			By("refusing it again at once when the owner takes 127.0.0.1 off the list")
			sf.Patch(map[string]any{"allowedSenderIps": []string{"192.0.2.10"}})
			ExpectError(serverSide(), http.StatusBadRequest, "allowedSenderIps")
		})
	})

	Describe("honeypot", Ordered, ContinueOnFailure, func() {
		var sf *submitForm
		BeforeAll(func() {
			f = shared
			sf = verifiedSubmitForm(f, nil)
		})

		DescribeTable("refuses a filled botcheck as spam",
			func(body func() any) {
				r := f.Post("", sf.Path(), body(), fromOrigin("https://example.com"))
				ExpectError(r, http.StatusBadRequest, "spam")
				Expect(r.JSON).NotTo(HaveKey("deliveryId"))
			},
			Entry("JSON true", func() any { return map[string]any{"botcheck": true, "message": "Hello"} }),
			Entry(`JSON "on"`, func() any { return map[string]any{"botcheck": "on", "message": "Hello"} }),
			Entry(`JSON "yes"`, func() any { return map[string]any{"botcheck": "yes", "message": "Hello"} }),
			Entry("JSON 1", func() any { return map[string]any{"botcheck": 1, "message": "Hello"} }),
			Entry("urlencoded botcheck=1", func() any { return urlencodedBody("botcheck", "1", "message", "Hello") }),
		)

		DescribeTable("accepts an empty or false-like botcheck and forwards it nowhere",
			func(body func() any) { accepted(f.Post("", sf.Path(), body(), fromOrigin("https://example.com"))) },
			Entry("JSON false", func() any { return map[string]any{"botcheck": false, "message": "Hello"} }),
			Entry(`JSON ""`, func() any { return map[string]any{"botcheck": "", "message": "Hello"} }),
			Entry("JSON 0", func() any { return map[string]any{"botcheck": 0, "message": "Hello"} }),
			Entry("JSON null", func() any { return map[string]any{"botcheck": nil, "message": "Hello"} }),
			Entry(`JSON "off"`, func() any { return map[string]any{"botcheck": "off", "message": "Hello"} }),
			Entry("urlencoded botcheck=", func() any { return urlencodedBody("botcheck", "", "message", "Hello") }),
		)
	})

	Describe("paid_features", func() {
		post := func(sf *submitForm, body map[string]any) *Response {
			GinkgoHelper()
			body["message"] = "Hello"
			return f.Post("", sf.Path(), body, fromOrigin("https://example.com"))
		}

		It("needs cc_recipients for ccemail, then copies valid addresses", func() {
			sf := verifiedSubmitForm(f, nil)
			cc1, cc2 := UniqueEmail("cc"), UniqueEmail("cc")

			By("refusing ccemail without the entitlement")
			ExpectError(post(sf, map[string]any{"ccemail": cc1}), http.StatusBadRequest, "ccemail", "entitlement")

			By("an operator granting cc_recipients")
			f.Grant(sf.Owner, "cc_recipients")

			By("refusing an invalid address")
			ExpectError(post(sf, map[string]any{"ccemail": cc1 + ", not-an-address"}), http.StatusBadRequest, "ccemail")

			By("refusing more than 10 addresses")
			var many []string
			for range 11 {
				many = append(many, UniqueEmail("cc"))
			}
			ExpectError(post(sf, map[string]any{"ccemail": strings.Join(many, ", ")}), http.StatusBadRequest, "ccemail")

			By("accepting valid addresses separated by a comma and a semicolon")
			r := post(sf, map[string]any{"ccemail": cc1 + "; " + cc2})
			accepted(r)
			m := notificationMail(f, sf.Recipient, r)
			Expect(m.Header.Get("Cc")).To(SatisfyAll(ContainSubstring(cc1), ContainSubstring(cc2)))
		})

		It("needs per_submit_webhook for webhook, and an https URL", func() {
			sf := verifiedSubmitForm(f, nil)

			By("refusing webhook without the entitlement")
			ExpectError(post(sf, map[string]any{"webhook": "https://hooks.example.com/formd"}), http.StatusBadRequest, "webhook", "entitlement")

			By("an operator granting per_submit_webhook")
			f.Grant(sf.Owner, "per_submit_webhook")

			By("refusing a plain http URL")
			ExpectError(post(sf, map[string]any{"webhook": "http://hooks.example.com/formd"}), http.StatusBadRequest, "webhook", "https")
		})

		It("refuses a replyto that is not an email address", func() {
			sf := verifiedSubmitForm(f, nil)
			ExpectError(post(sf, map[string]any{"replyto": "not-an-address"}), http.StatusBadRequest, "replyto")
			ExpectError(post(sf, map[string]any{"replyto": "Ada <ada@example.com>"}), http.StatusBadRequest, "replyto")
		})
	})

	Describe("uploads", func() {
		It("refuses file parts until uploads are enabled, which needs the file_uploads entitlement", func() {
			sf := verifiedSubmitForm(f, nil)
			upload := func() *Response {
				GinkgoHelper()
				body := multipartBody([]string{"message", "Hello"},
					uploadPart{Field: "attachment", Filename: "cv.pdf", ContentType: "application/pdf", Data: []byte("%PDF-1.4\n")})
				return f.Post("", sf.Path(), body, fromOrigin("https://example.com"))
			}

			By("refusing a file while uploads are disabled")
			ExpectError(upload(), http.StatusBadRequest, "File uploads are not enabled for this form")

			By("refusing to enable uploads without the entitlement")
			r := f.Patch(sf.Token, "/v1/forms/"+sf.ID, map[string]any{"uploadsEnabled": true})
			ExpectError(r, http.StatusBadRequest, "file_uploads")

			By("enabling uploads once the entitlement is granted, and accepting the file")
			f.Grant(sf.Owner, "file_uploads")
			sf.Patch(map[string]any{"uploadsEnabled": true})
			Expect(upload().Status).To(Equal(http.StatusOK))

			By("still accepting the same multipart post without the file")
			accepted(f.Post("", sf.Path(), multipartBody([]string{"message", "Hello"}), fromOrigin("https://example.com")))
		})
	})

	Describe("fields", Ordered, ContinueOnFailure, func() {
		var sf *submitForm
		BeforeAll(func() {
			f = shared
			sf = verifiedSubmitForm(f, map[string]any{"validation": map[string]any{"fields": []any{
				map[string]any{"field": "name", "required": true},
				map[string]any{"field": "message", "minLength": 5},
				map[string]any{"field": "nickname", "maxLength": 3},
				map[string]any{"field": "email", "type": "email"},
				map[string]any{"field": "website", "type": "url"},
				map[string]any{"field": "age", "type": "number"},
				map[string]any{"field": "zip", "regex": "^[0-9]{5}$"},
			}}})
		})

		valid := func() map[string]any {
			return map[string]any{"name": "Ada", "message": "Hello there", "nickname": "ada", "email": "ada@example.com",
				"website": "https://ada.example.com", "age": "36", "zip": "12345"}
		}
		with := func(changes map[string]any) map[string]any {
			body := valid()
			for k, v := range changes {
				if v == nil {
					delete(body, k)
				} else {
					body[k] = v
				}
			}
			return body
		}
		expectInvalid := func(r *Response, errs ...types.GomegaMatcher) {
			GinkgoHelper()
			ExpectError(r, http.StatusBadRequest)
			Expect(r.JSON).To(HaveKeyWithValue("message", "Submission validation failed."))
			Expect(r.Array("errors")).To(ConsistOf(errs))
			Expect(r.JSON).NotTo(HaveKey("deliveryId"))
		}

		DescribeTable("refuses a post breaking one rule, naming the field and the rule",
			func(changes map[string]any, field, rule string) {
				r := f.Post("", sf.Path(), with(changes), fromOrigin("https://example.com"))
				expectInvalid(r, fieldError(field, rule))
			},
			Entry("required: name missing", map[string]any{"name": nil}, "name", "required"),
			Entry("required: name blank", map[string]any{"name": "   "}, "name", "required"),
			Entry("minLength 5: message of 3 characters", map[string]any{"message": "hey"}, "message", "min_length"),
			Entry("minLength 5: 2 emoji (8 bytes) are 2 characters", map[string]any{"message": "😀😀"}, "message", "min_length"),
			Entry("maxLength 3: nickname of 4 characters", map[string]any{"nickname": "adal"}, "nickname", "max_length"),
			Entry("type email", map[string]any{"email": "ada-at-example.com"}, "email", "email"),
			Entry("type url", map[string]any{"website": "ada.example.com/about"}, "website", "url"),
			Entry("type number", map[string]any{"age": "thirty-six"}, "age", "number"),
			Entry("regex", map[string]any{"zip": "1234a"}, "zip", "regex"),
		)

		It("lists every broken rule at once", func() {
			r := f.Post("", sf.Path(), map[string]any{"message": "hey", "nickname": "adal", "email": "ada-at-example.com",
				"website": "ada.example.com/about", "age": "thirty-six", "zip": "1234a"}, fromOrigin("https://example.com"))
			expectInvalid(r,
				fieldError("name", "required"), fieldError("message", "min_length"), fieldError("nickname", "max_length"),
				fieldError("email", "email"), fieldError("website", "url"), fieldError("age", "number"), fieldError("zip", "regex"))
		})

		It("accepts a post satisfying every rule", func() {
			r := f.Post("", sf.Path(), valid(), fromOrigin("https://example.com"))
			expectSubmissionAccepted(r, valid())
		})

		It("counts lengths in characters, not bytes", func() {
			body := with(map[string]any{"nickname": "😀😀😀", "message": "ééééé"})
			r := f.Post("", sf.Path(), body, fromOrigin("https://example.com"))
			expectSubmissionAccepted(r, body)
		})
	})

	Describe("gate order", func() {
		It("reports the origin failure of a post that also breaks a field rule", func() {
			sf := verifiedSubmitForm(f, map[string]any{
				"allowedDomains": []string{"example.com"},
				"validation":     map[string]any{"fields": []any{map[string]any{"field": "name", "required": true}}},
			})
			r := f.Post("", sf.Path(), hello(), fromOrigin("https://evil.test"))
			ExpectError(r, http.StatusBadRequest, "allowedDomains")
			Expect(r.JSON["message"]).NotTo(Equal("Submission validation failed."))
			Expect(r.JSON).NotTo(HaveKey("errors"), "a live submission stops at the first failed gate")

			By("the same post from an allowed site reaching the field rules")
			r = f.Post("", sf.Path(), hello(), fromOrigin("https://example.com"))
			ExpectError(r, http.StatusBadRequest, "Submission validation failed.")
			Expect(r.Array("errors")).To(ConsistOf(fieldError("name", "required")))
		})

		It("reports an unverified recipient before a refused origin", func() {
			sf := unverifiedSubmitForm(f, map[string]any{"allowedDomains": []string{"example.com"}})
			r := f.Post("", sf.Path(), map[string]any{"message": "Hello", "botcheck": "yes"}, fromOrigin("https://evil.test"))
			ExpectError(r, http.StatusBadRequest, "not verified")
		})
	})
})
