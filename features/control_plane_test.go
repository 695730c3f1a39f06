package features_test

import (
	"fmt"
	"net/http"
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
			// formd's own pages send their origin with every write.
			cookie := SessionCookie(token)
			cookie.Set("Origin", f.URL)

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

		It("refuses a write made with the cookie from another site (CSRF), but not a bearer call", func() {
			token, _ := f.RegisteredVerifiedUser()
			fromEvil := func(h http.Header) http.Header {
				h.Set("Origin", "https://evil.example")
				h.Set("Sec-Fetch-Site", "cross-site")
				return h
			}
			By("a cross-site form post carrying the cookie, without a JSON content type")
			r := f.Do(http.MethodPost, "/v1/forms", RawBody{Data: []byte(`{"name":"Evil","recipientEmail":"evil@example.test"}`)},
				fromEvil(SessionCookie(token)))
			ExpectError(r, http.StatusForbidden, "own origin")
			By("the same as JSON from the other site")
			r = f.Do(http.MethodPost, "/v1/forms", contactForm(nil), fromEvil(SessionCookie(token)))
			ExpectError(r, http.StatusForbidden)
			By("a cookie write with neither Origin nor Sec-Fetch-Site")
			r = f.Do(http.MethodPost, "/v1/forms", contactForm(nil), SessionCookie(token))
			ExpectError(r, http.StatusForbidden)
			Expect(f.Forms(token)).To(BeEmpty(), "no form was created")

			By("reads with the cookie and bearer-token writes from anywhere still work")
			Expect(f.Do(http.MethodGet, "/v1/forms", nil, fromEvil(SessionCookie(token))).Status).To(Equal(http.StatusOK))
			r = f.Do(http.MethodPost, "/v1/forms", contactForm(nil), fromEvil(Bearer(token)))
			Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
			By("a same-origin cookie write passes (Sec-Fetch-Site: same-origin)")
			same := SessionCookie(token)
			same.Set("Sec-Fetch-Site", "same-origin")
			r = f.Do(http.MethodPost, "/v1/forms", contactForm(nil), same)
			Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
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
})

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
