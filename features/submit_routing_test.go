package features_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Helpers shared by the public submission specs (this file and
// submit_gates_test.go).

// submitForm is a form that accepts live submissions: its owner's account
// email and its recipient email are both verified.
type submitForm struct {
	f *Formd
	// Token is the owner's session token; Owner is the owner's email.
	Token, Owner string
	// ID, AccessKey and Recipient of the form.
	ID, AccessKey, Recipient string
}

// verifiedSubmitForm registers a verified account, grants it the given
// entitlements, creates a form named Contact with settings (recipientEmail is
// a fresh UniqueEmail unless settings name one) and verifies its recipient.
func verifiedSubmitForm(f *Formd, settings map[string]any, grants ...string) *submitForm {
	GinkgoHelper()
	sf := unverifiedSubmitForm(f, settings, grants...)
	f.VerifyRecipient(sf.Recipient)
	return sf
}

// unverifiedSubmitForm is verifiedSubmitForm without the recipient's
// verification: the verification email waits in the recipient's inbox.
func unverifiedSubmitForm(f *Formd, settings map[string]any, grants ...string) *submitForm {
	GinkgoHelper()
	token, owner := f.RegisteredVerifiedUser()
	for _, feature := range grants {
		f.Grant(owner, feature)
	}
	body := map[string]any{"name": "Contact", "recipientEmail": UniqueEmail("inbox")}
	for k, v := range settings {
		body[k] = v
	}
	form, key := f.CreateForm(token, body)
	return &submitForm{f: f, Token: token, Owner: owner, ID: form["id"].(string), AccessKey: key, Recipient: form["recipientEmail"].(string)}
}

// Path is the form's /submit/{accessKey} address.
func (sf *submitForm) Path() string { return "/submit/" + sf.AccessKey }

// Patch changes the form's settings and expects 200.
func (sf *submitForm) Patch(settings map[string]any) {
	GinkgoHelper()
	r := sf.f.Patch(sf.Token, "/v1/forms/"+sf.ID, settings)
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
}

// A browser navigating with a plain HTML form: it accepts HTML, not JSON, and
// so is not a JavaScript client (the harness asks for JSON by default).
func htmlNavigation() http.Header {
	return http.Header{
		"Accept":         {"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
		"Sec-Fetch-Mode": {"navigate"},
	}
}

// fromPage is what a browser sends when a page of site (https://host) posts:
// its Origin and the page as Referer.
func fromPage(page string) http.Header {
	GinkgoHelper()
	u, err := url.Parse(page)
	Expect(err).NotTo(HaveOccurred())
	return http.Header{"Origin": {u.Scheme + "://" + u.Host}, "Referer": {page}}
}

// urlencodedBody is an application/x-www-form-urlencoded body of name, value
// pairs, in the given order (names may repeat).
func urlencodedBody(pairs ...string) RawBody {
	GinkgoHelper()
	Expect(len(pairs)%2).To(Equal(0), "name, value pairs")
	var parts []string
	for i := 0; i < len(pairs); i += 2 {
		parts = append(parts, url.QueryEscape(pairs[i])+"="+url.QueryEscape(pairs[i+1]))
	}
	return RawBody{ContentType: "application/x-www-form-urlencoded", Data: []byte(strings.Join(parts, "&"))}
}

// uploadPart is a file part of a multipart body.
type uploadPart struct {
	Field, Filename, ContentType string
	Data                         []byte
}

// multipartBody is a multipart/form-data body with the name, value pairs of
// pairs (in order; names may repeat) followed by the file parts.
func multipartBody(pairs []string, files ...uploadPart) RawBody {
	GinkgoHelper()
	Expect(len(pairs)%2).To(Equal(0), "name, value pairs")
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for i := 0; i < len(pairs); i += 2 {
		Expect(w.WriteField(pairs[i], pairs[i+1])).To(Succeed())
	}
	for _, file := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, file.Field, file.Filename))
		h.Set("Content-Type", file.ContentType)
		p, err := w.CreatePart(h)
		Expect(err).NotTo(HaveOccurred())
		_, err = p.Write(file.Data)
		Expect(err).NotTo(HaveOccurred())
	}
	Expect(w.Close()).To(Succeed())
	return RawBody{ContentType: w.FormDataContentType(), Data: buf.Bytes()}
}

var submissionUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// expectSubmissionAccepted asserts that r is exactly the SubmissionResponse of
// an accepted live submission whose forwarded custom fields are data.
func expectSubmissionAccepted(r *Response, data map[string]any) {
	GinkgoHelper()
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	Expect(r.Header.Get("Content-Type")).To(HavePrefix("application/json"), "%s", r)
	Expect(r.Header.Get("Location")).To(BeEmpty(), "a JavaScript client is not redirected")
	Expect(r.JSON).To(HaveKeyWithValue("success", true), "%s", r)
	Expect(r.JSON).To(HaveKeyWithValue("message", "Email sent successfully!"), "%s", r)
	Expect(r.RequestID()).NotTo(BeEmpty(), "X-Request-Id header")
	Expect(r.JSON).To(HaveKeyWithValue("requestId", r.RequestID()), "%s", r)
	Expect(r.JSON).To(HaveKeyWithValue("deliveryId", MatchRegexp(submissionUUID.String())), "%s", r)
	Expect(r.JSON).To(HaveKeyWithValue("webhookDeliveryIds", SatisfyAll(BeAssignableToTypeOf([]any{}), BeEmpty())), "%s", r)
	Expect(r.JSON).To(HaveKeyWithValue("notificationDeliveryIds", SatisfyAll(BeAssignableToTypeOf([]any{}), BeEmpty())), "%s", r)
	Expect(r.JSON).To(HaveKeyWithValue("body", Equal(map[string]any{"data": data, "message": "Email sent successfully!"})), "%s", r)
	keys := make([]string, 0, len(r.JSON))
	for k := range r.JSON {
		keys = append(keys, k)
	}
	Expect(keys).To(ConsistOf("success", "message", "requestId", "deliveryId", "webhookDeliveryIds", "notificationDeliveryIds", "body"),
		"exactly the SubmissionResponse fields of a live submission: %s", r)
}

// submittedData is body.data of a submission response.
func submittedData(r *Response) map[string]any {
	GinkgoHelper()
	data, ok := r.Object("body")["data"].(map[string]any)
	Expect(ok).To(BeTrue(), "body.data is an object: %s", r)
	return data
}

// notificationMail waits for the notification email of an accepted
// submission: the email to recipient whose Message-ID names deliveryID.
func notificationMail(f *Formd, recipient string, r *Response) Mail {
	GinkgoHelper()
	deliveryID, _ := r.JSON["deliveryId"].(string)
	Expect(deliveryID).NotTo(BeEmpty(), "%s", r)
	var found Mail
	Eventually(func() bool {
		for _, m := range f.Mail.To(recipient) {
			if strings.Contains(m.Header.Get("Message-Id"), deliveryID) {
				found = m
				return true
			}
		}
		return false
	}).WithTimeout(MailTimeout).WithPolling(20*time.Millisecond).Should(BeTrue(), "the notification email %s to %s", deliveryID, recipient)
	return found
}

// mailLines are the lines of an email's text, without line terminators.
func mailLines(m Mail) []string {
	return strings.Split(strings.ReplaceAll(m.Text, "\r\n", "\n"), "\n")
}

// expectRedirect asserts a 303 See Other and returns its Location.
func expectRedirect(r *Response) string {
	GinkgoHelper()
	Expect(r.Status).To(Equal(http.StatusSeeOther), "%s", r)
	loc := r.Header.Get("Location")
	Expect(loc).NotTo(BeEmpty(), "a 303 names where to go")
	return loc
}

// expectErrorPageRedirect asserts a 303 to the hosted error page and returns
// its query (code, requestId, back, field and rule).
func expectErrorPageRedirect(r *Response) url.Values {
	GinkgoHelper()
	loc := expectRedirect(r)
	Expect(loc).To(HavePrefix("/submit/error?"), "the hosted error page")
	u, err := url.Parse(loc)
	Expect(err).NotTo(HaveOccurred())
	Expect(u.Query().Get("requestId")).To(Equal(r.RequestID()))
	return u.Query()
}

// htmlPage fetches a hosted page, expects 200 HTML and returns its text.
func htmlPage(f *Formd, path string, headers ...http.Header) string {
	GinkgoHelper()
	page := f.Get("", path, append([]http.Header{htmlNavigation()}, headers...)...)
	Expect(page.Status).To(Equal(http.StatusOK), "GET %s: %s", path, page)
	Expect(page.Header.Get("Content-Type")).To(HavePrefix("text/html"))
	return string(page.Body)
}

var _ = Describe("Public submission routing", func() {
	var f *Formd
	BeforeEach(func() { f = shared })

	site := "https://example.com/contact"

	Describe("where the access key goes", Ordered, ContinueOnFailure, func() {
		var sf *submitForm
		BeforeAll(func() {
			f = shared
			sf = verifiedSubmitForm(f, nil)
		})

		DescribeTable("accepts a submission with the key",
			func(path func() string, body func() any) {
				r := f.Post("", path(), body(), fromPage(site))
				expectSubmissionAccepted(r, map[string]any{"name": "Ada", "message": "Hello"})
			},
			Entry("in access_key of a JSON body to /submit",
				func() string { return "/submit" },
				func() any { return map[string]any{"access_key": sf.AccessKey, "name": "Ada", "message": "Hello"} }),
			Entry("in access_key of a urlencoded body to /submit",
				func() string { return "/submit" },
				func() any { return urlencodedBody("access_key", sf.AccessKey, "name", "Ada", "message", "Hello") }),
			Entry("in access_key of a multipart body to /submit",
				func() string { return "/submit" },
				func() any {
					return multipartBody([]string{"access_key", sf.AccessKey, "name", "Ada", "message", "Hello"})
				}),
			Entry("in the legacy apikey of a JSON body to /submit",
				func() string { return "/submit" },
				func() any { return map[string]any{"apikey": sf.AccessKey, "name": "Ada", "message": "Hello"} }),
			Entry("in the legacy apikey of a urlencoded body to /submit",
				func() string { return "/submit" },
				func() any { return urlencodedBody("apikey", sf.AccessKey, "name", "Ada", "message", "Hello") }),
			Entry("in the path, with a JSON body",
				func() string { return sf.Path() },
				func() any { return map[string]any{"name": "Ada", "message": "Hello"} }),
			Entry("in the path, with a multipart body",
				func() string { return sf.Path() },
				func() any { return multipartBody([]string{"name", "Ada", "message", "Hello"}) }),
			Entry("in the path, with a urlencoded body",
				func() string { return sf.Path() },
				func() any { return urlencodedBody("name", "Ada", "message", "Hello") }),
			Entry("in the path, winning over another key in the body",
				func() string { return sf.Path() },
				func() any {
					return map[string]any{"access_key": "not-this-forms-key", "name": "Ada", "message": "Hello"}
				}),
		)

		It("lets the path key win over a valid body key", func() {
			r := f.Post("", "/submit/no-such-key", map[string]any{"access_key": sf.AccessKey, "message": "Hello"}, fromPage(site))
			ExpectError(r, http.StatusBadRequest, "No form matches")
		})

		It("queues the notification email the response names", func() {
			r := f.Post("", sf.Path(), map[string]any{"name": "Ada", "message": "Hello"}, fromPage(site))
			expectSubmissionAccepted(r, map[string]any{"name": "Ada", "message": "Hello"})
			m := notificationMail(f, sf.Recipient, r)
			Expect(mailLines(m)).To(ContainElements("name: Ada", "message: Hello"))
		})

		DescribeTable("refuses a submission without a usable key with a clear ErrorResponse",
			func(path string, body func() any, fragments ...string) {
				r := f.Post("", path, body(), fromPage(site))
				ExpectError(r, http.StatusBadRequest, fragments...)
				Expect(r.JSON).NotTo(HaveKey("deliveryId"))
			},
			Entry("no key at all (JSON)", "/submit",
				func() any { return map[string]any{"message": "Hello"} }, "access_key", "missing"),
			Entry("no key at all (urlencoded)", "/submit",
				func() any { return urlencodedBody("message", "Hello") }, "access_key", "missing"),
			Entry("a blank access_key", "/submit",
				func() any { return map[string]any{"access_key": "  ", "message": "Hello"} }, "access_key", "missing"),
			Entry("an unknown access_key", "/submit",
				func() any { return map[string]any{"access_key": "fdk_unknown", "message": "Hello"} }, "No form matches"),
			Entry("an unknown key in the path", "/submit/fdk_unknown",
				func() any { return map[string]any{"message": "Hello"} }, "No form matches"),
		)
	})

	Describe("repeated field names, as checkbox groups send them", Ordered, ContinueOnFailure, func() {
		var sf *submitForm
		BeforeAll(func() {
			f = shared
			sf = verifiedSubmitForm(f, nil)
		})

		DescribeTable("are joined with commas in the echo and in the notification email",
			func(body func() any) {
				r := f.Post("", sf.Path(), body(), fromPage(site))
				expectSubmissionAccepted(r, map[string]any{"topic": "a, b", "message": "Hello"})
				m := notificationMail(f, sf.Recipient, r)
				Expect(mailLines(m)).To(ContainElement("topic: a, b"))
				Expect(strings.Count(m.Text, "topic:")).To(Equal(1), "one line for the field: %q", m.Text)
			},
			Entry("urlencoded topic=a&topic=b", func() any { return urlencodedBody("topic", "a", "message", "Hello", "topic", "b") }),
			Entry("multipart with topic twice", func() any {
				return multipartBody([]string{"topic", "a", "topic", "b", "message", "Hello"})
			}),
			Entry("a JSON list", func() any { return map[string]any{"topic": []string{"a", "b"}, "message": "Hello"} }),
		)
	})

	Describe("reserved fields", Ordered, ContinueOnFailure, func() {
		var sf *submitForm
		BeforeAll(func() {
			f = shared
			sf = verifiedSubmitForm(f, nil)
		})

		DescribeTable("steer the submission but are never forwarded as custom data",
			func(body func(replyTo string) any) {
				replyTo := UniqueEmail("client")
				r := f.Post("", "/submit", body(replyTo), fromPage(site))
				expectSubmissionAccepted(r, map[string]any{"message": "Hello"})

				By("the notification email listing only the custom field")
				m := notificationMail(f, sf.Recipient, r)
				Expect(mailLines(m)).To(ContainElement("message: Hello"))
				for _, reserved := range []string{"access_key", "apikey", "subject", "from_name", "replyto", "redirect", "botcheck",
					"h-captcha-response", "g-captcha-response", "captcha_response", "cf-captcha-response"} {
					Expect(m.Text).NotTo(ContainSubstring(reserved+":"), "%s is not forwarded: %q", reserved, m.Text)
				}
				for _, value := range []string{sf.AccessKey, "Quote request", "Website team", replyTo, "https://example.com/thanks", "token-"} {
					Expect(m.Text).NotTo(ContainSubstring(value), "the value %q is not forwarded: %q", value, m.Text)
				}

				By("the routing fields steering the email")
				Expect(m.Subject).To(Equal("Quote request"))
				Expect(m.Header.Get("From")).To(ContainSubstring("Website team"))
				Expect(m.Header.Get("Reply-To")).To(ContainSubstring(replyTo))
			},
			Entry("in a JSON body", func(replyTo string) any {
				return map[string]any{
					"access_key": sf.AccessKey, "apikey": sf.AccessKey, "subject": "Quote request", "from_name": "Website team",
					"replyto": replyTo, "redirect": "https://example.com/thanks", "botcheck": "",
					"h-captcha-response": "token-h", "g-captcha-response": "token-g", "captcha_response": "token-c",
					"cf-captcha-response": "token-cf", "message": "Hello",
				}
			}),
			Entry("in a urlencoded body", func(replyTo string) any {
				return urlencodedBody("access_key", sf.AccessKey, "apikey", sf.AccessKey, "subject", "Quote request",
					"from_name", "Website team", "replyto", replyTo, "redirect", "https://example.com/thanks", "botcheck", "",
					"h-captcha-response", "token-h", "g-captcha-response", "token-g", "captcha_response", "token-c",
					"cf-captcha-response", "token-cf", "message", "Hello")
			}),
		)
	})

	Describe("JSON or redirect", Ordered, ContinueOnFailure, func() {
		var sf *submitForm
		BeforeAll(func() {
			f = shared
			sf = verifiedSubmitForm(f, nil)
		})

		DescribeTable("answers JavaScript clients with JSON, each marker on its own",
			func(marker http.Header) {
				html := http.Header{"Accept": {"text/html"}}
				r := f.Post("", sf.Path(), urlencodedBody("message", "Hello"), fromPage(site), html, marker)
				expectSubmissionAccepted(r, map[string]any{"message": "Hello"})
			},
			Entry("Accept: application/json", Header("Accept", "application/json")),
			Entry("Accept listing application/json among others", Header("Accept", "text/plain, application/json;q=0.9")),
			Entry("X-Requested-With: XMLHttpRequest", Header("X-Requested-With", "XMLHttpRequest")),
			Entry("Sec-Fetch-Mode: cors (fetch with FormData)", Header("Sec-Fetch-Mode", "cors")),
		)

		It("answers a JSON body with JSON even when the client asks for HTML", func() {
			r := f.Post("", sf.Path(), map[string]any{"message": "Hello"}, fromPage(site), htmlNavigation())
			expectSubmissionAccepted(r, map[string]any{"message": "Hello"})
		})

		It("redirects a plain urlencoded post that carries none of the markers", func() {
			r := f.Post("", sf.Path(), urlencodedBody("message", "Hello"), fromPage(site), htmlNavigation())
			Expect(expectRedirect(r)).To(Equal("/submit/success?form=" + sf.ID))
			Expect(r.JSON).To(BeNil(), "no JSON body for a browser: %s", r)
		})

		It("answers a JavaScript client sending redirect with JSON, not a redirect", func() {
			r := f.Post("", sf.Path(), urlencodedBody("message", "Hello", "redirect", "https://elsewhere.test/thanks"),
				fromPage(site), Header("Accept", "application/json"))
			expectSubmissionAccepted(r, map[string]any{"message": "Hello"})
		})
	})

	Describe("where a plain HTML post goes on success", func() {
		It("goes to the hosted success page, which thanks the submitter and links back", func() {
			sf := verifiedSubmitForm(f, nil)
			r := f.Post("", sf.Path(), urlencodedBody("message", "Hello"), fromPage(site), htmlNavigation())
			loc := expectRedirect(r)
			Expect(loc).To(Equal("/submit/success?form="+sf.ID), "the page of the form, in its language and words")

			By("following the redirect as the browser does")
			page := htmlPage(f, loc, Header("Referer", site))
			Expect(page).To(ContainSubstring("Thank you"))
			Expect(page).To(ContainSubstring(`href="https://example.com/contact"`))
		})

		It("goes to the form's redirectDefault, as it is now", func() {
			sf := verifiedSubmitForm(f, map[string]any{"redirectDefault": "https://example.com/thanks"})
			r := f.Post("", sf.Path(), urlencodedBody("message", "Hello"), fromPage(site), htmlNavigation())
			Expect(expectRedirect(r)).To(Equal("https://example.com/thanks"))

			By("the owner changing redirectDefault")
			sf.Patch(map[string]any{"redirectDefault": "https://example.com/merci"})
			r = f.Post("", sf.Path(), urlencodedBody("message", "Hello"), fromPage(site), htmlNavigation())
			Expect(expectRedirect(r)).To(Equal("https://example.com/merci"))
		})

		It("goes to a per-submit redirect on the posting site, before the redirectDefault", func() {
			sf := verifiedSubmitForm(f, map[string]any{"redirectDefault": "https://example.com/thanks"})
			r := f.Post("", sf.Path(), urlencodedBody("message", "Hello", "redirect", "https://example.com/merci?lang=fr"),
				fromPage(site), htmlNavigation())
			Expect(expectRedirect(r)).To(Equal("https://example.com/merci?lang=fr"))
		})

		It("goes to a per-submit redirect on one of the form's allowedDomains", func() {
			sf := verifiedSubmitForm(f, map[string]any{"allowedDomains": []string{"www.example.com", "thanks.example.net"}})
			r := f.Post("", sf.Path(), urlencodedBody("message", "Hello", "redirect", "https://thanks.example.net/done"),
				fromPage("https://www.example.com/contact"), htmlNavigation())
			Expect(expectRedirect(r)).To(Equal("https://thanks.example.net/done"))
		})

		Context("with a redirect that is not an absolute https URL", Ordered, ContinueOnFailure, func() {
			var sf *submitForm
			BeforeAll(func() {
				f = shared
				sf = verifiedSubmitForm(f, map[string]any{"redirectDefault": "https://example.com/thanks"})
			})

			DescribeTable("sends the browser to the hosted error page, naming https",
				func(redirect string) {
					r := f.Post("", sf.Path(), urlencodedBody("message", "Hello", "redirect", redirect), fromPage(site), htmlNavigation())
					q := expectErrorPageRedirect(r)
					Expect(q.Get("code")).To(Equal("redirect"))
					Expect(htmlPage(f, r.Header.Get("Location"))).To(ContainSubstring("https"))
				},
				Entry("plain http on the same site", "http://example.com/thanks"),
				Entry("a javascript: URL", "javascript:alert(1)"),
				Entry("a relative path", "/thanks"),
				Entry("a protocol-relative URL", "//example.com/thanks"),
			)
		})

		It("needs the cross_domain_redirect entitlement to redirect to another site", func() {
			sf := verifiedSubmitForm(f, nil)
			post := func() *Response {
				return f.Post("", sf.Path(), urlencodedBody("message", "Hello", "redirect", "https://elsewhere.test/thanks"),
					fromPage(site), htmlNavigation())
			}

			By("refusing it without the entitlement")
			r := post()
			q := expectErrorPageRedirect(r)
			Expect(q.Get("code")).To(Equal("redirect"))
			Expect(htmlPage(f, r.Header.Get("Location"))).To(ContainSubstring("unless the account may redirect elsewhere"))

			By("following it once an operator grants cross_domain_redirect")
			f.Grant(sf.Owner, "cross_domain_redirect")
			Expect(expectRedirect(post())).To(Equal("https://elsewhere.test/thanks"))
		})
	})

	Describe("the hosted error page of a refused plain HTML post", func() {
		It("shows the reason, the request id and a way back to the form", func() {
			sf := verifiedSubmitForm(f, map[string]any{"validation": map[string]any{"fields": []any{
				map[string]any{"field": "message", "required": true}}}})
			r := f.Post("", sf.Path(), urlencodedBody("name", "Ada"), fromPage(site), htmlNavigation())
			q := expectErrorPageRedirect(r)
			Expect(q.Get("code")).To(Equal("fields"))
			Expect(q["field"]).To(Equal([]string{"message"}))
			Expect(q["rule"]).To(Equal([]string{"required"}))
			Expect(q.Get("back")).To(Equal(site))

			By("following the redirect as the browser does (it sends the form's page as Referer)")
			page := htmlPage(f, r.Header.Get("Location"), Header("Referer", site))
			Expect(page).To(ContainSubstring("Submission validation failed."))
			Expect(page).To(ContainSubstring("message is required"))
			Expect(page).To(ContainSubstring(r.RequestID()))
			Expect(page).To(ContainSubstring(`href="https://example.com/contact"`))
		})

		It("prints none of the post's own text, such as an HTML injection attempt in a field name", func() {
			sf := verifiedSubmitForm(f, nil)
			r := f.Post("", sf.Path(), urlencodedBody("<script>alert(1)</script>", "binary\x01data"), fromPage(site), htmlNavigation())
			q := expectErrorPageRedirect(r)
			Expect(q.Get("code")).To(Equal("invalid_body"))

			page := htmlPage(f, r.Header.Get("Location"), Header("Referer", site))
			Expect(page).NotTo(ContainSubstring("script"))
			Expect(page).To(ContainSubstring("could not be read"))
		})

		// Security review: the page printed any text of its query under
		// formd's name, with a back link to any site.
		It("prints no text from a crafted address and links back only to the site the visitor came from", func() {
			q := url.Values{"reason": {"Your account is locked: call +1 555 0100"}, "code": {"<script>alert(1)</script>"},
				"back": {"https://evil.example/login"}, "requestId": {"call +1 555 0100"}}
			page := htmlPage(f, "/submit/error?"+q.Encode())
			Expect(page).NotTo(ContainSubstring("555 0100"))
			Expect(page).NotTo(ContainSubstring("script"))
			Expect(page).To(ContainSubstring("The form could not be sent."))
			Expect(page).NotTo(ContainSubstring("<a "), "no back link to a site the visitor did not come from")
			Expect(utf8.ValidString(page)).To(BeTrue())
		})

		It("renders an https back link to the page that posted", func() {
			q := url.Values{"code": {"honeypot"}, "back": {"https://example.com/contact?step=2"}}
			page := htmlPage(f, "/submit/error?"+q.Encode(), Header("Referer", "https://example.com/"))
			Expect(page).To(ContainSubstring(`href="https://example.com/contact?step=2"`))
			Expect(htmlPage(f, "/submit/error?"+q.Encode(), Header("Referer", "https://javascript.example/"))).NotTo(ContainSubstring("<a "))
		})
	})

	It("walks a plain HTML form from the post to the recipient's inbox", func() {
		sf := verifiedSubmitForm(f, nil)

		By("the browser posting the form urlencoded, as <form method=post> does")
		r := f.Post("", sf.Path(), urlencodedBody(
			"name", "Ada Lovelace", "email", "ada@example.com", "topic", "sales", "topic", "support",
			"message", "I'd like a quote & a call"), fromPage(site), htmlNavigation())
		loc := expectRedirect(r)

		By("the browser following the 303")
		page := htmlPage(f, loc, Header("Referer", site))
		Expect(page).To(ContainSubstring("Thank you"))

		By("the recipient receiving the notification email listing the fields")
		m := f.Mail.WaitForMail(sf.Recipient)
		Expect(m.From).To(Equal("formd@test.local"))
		Expect(mailLines(m)).To(ContainElements(
			"name: Ada Lovelace",
			"email: ada@example.com",
			"topic: sales, support",
			"message: I'd like a quote & a call",
		))
		Expect(m.Header.Get("Reply-To")).To(ContainSubstring("ada@example.com"), "the submitter is the reply-to by default")
	})
})
