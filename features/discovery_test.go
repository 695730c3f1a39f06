package features_test

import (
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Discovery", func() {
	var f *Formd
	BeforeEach(func() { f = shared })

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
		By("following its description, documentation and status links")
		for _, rel := range []string{"service-desc", "service-doc", "status"} {
			links, _ := entry[rel].([]any)
			Expect(links).NotTo(BeEmpty(), rel)
			for _, l := range links {
				href, _ := l.(map[string]any)["href"].(string)
				Expect(href).To(HavePrefix(f.URL + "/"))
				Expect(f.Get("", href).Status).To(Equal(http.StatusOK), href)
			}
		}

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

	It("answers GET /healthz while it serves HTTP, and GET /readyz with 503 once its database is gone", func() {
		health := f.Get("", "/healthz")
		Expect(health.Status).To(Equal(http.StatusOK))
		ready := f.Get("", "/readyz")
		Expect(ready.Status).To(Equal(http.StatusOK), "%s", ready)
		Expect(ready.JSON).To(HaveKeyWithValue("status", "ready"))

		By("naming the build `formd version` prints")
		out, err := exec.Command(formdBinary, "version").Output()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(MatchRegexp(`^formd \S+`))
		Expect(health.JSON).To(HaveKeyWithValue("version", strings.Fields(string(out))[1]))
		Expect(ready.JSON).To(HaveKeyWithValue("version", strings.Fields(string(out))[1]))

		By("starting a formd of its own and dropping its database")
		own := StartFormd()
		own.DropDatabase()
		Eventually(func() int { return own.Get("", "/readyz").Status }).
			WithTimeout(10 * time.Second).Should(Equal(http.StatusServiceUnavailable))
		Expect(own.Get("", "/readyz").JSON).To(HaveKeyWithValue("status", "database unavailable"))
		By("formd staying up and live meanwhile (its event router restarts instead of taking the process down)")
		Consistently(func() int { return own.Session.ExitCode() }).WithTimeout(2 * time.Second).Should(Equal(-1))
		Expect(own.Get("", "/healthz").Status).To(Equal(http.StatusOK))
		Expect(own.Get("", "/readyz").Status).To(Equal(http.StatusServiceUnavailable))
	})

	It("uses FORMD_BASE_URL in discovery documents and email links", func() {
		const base = "https://forms.example.test"
		own := StartFormd("FORMD_BASE_URL=" + base + "/")

		By("reading the discovery documents")
		Expect(string(own.Get("", "/auth.md").Body)).To(ContainSubstring(base + "/agent/auth"))
		catalog := own.Get("", "/.well-known/api-catalog")
		Expect(catalog.Array("linkset")[0]).To(HaveKeyWithValue("anchor", HavePrefix(base+"/")))
		Expect(own.Get("", "/.well-known/oauth-protected-resource").JSON).To(HaveKeyWithValue("resource", HavePrefix(base+"/")))

		By("registering and reading the verification link, which works on formd's own address")
		email := UniqueEmail("based")
		token := own.Register(email, "")
		m := own.Mail.WaitForMail(email)
		link := regexp.MustCompile(regexp.QuoteMeta(base) + `(/verify/[A-Za-z0-9_.-]+)`).FindStringSubmatch(m.Text)
		Expect(link).To(HaveLen(2), "a link under %s in %q", base, m.Text)
		path := link[1]
		Expect(own.FollowLink(path).Status).To(Equal(http.StatusOK)) // open, then confirm (issue 8, item 6)
		Expect(shared.Get("", path).Status).To(Equal(http.StatusNotFound), "a link is only valid on the formd that issued it")
		own.CreateForm(token, contactForm(nil))
	})
})

func absoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.IsAbs() && u.Host != ""
}
