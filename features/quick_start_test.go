package features_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The README's quick start, followed literally by a newcomer on a fresh
// database: its request bodies and its HTML form are read from README.md,
// so a quick start that changes without this spec fails it. Mail is read as
// a newcomer reads it after `make run`: from the dashboard's development
// mail page, in Chromium.
var _ = Describe("The README's quick start", Ordered, func() {
	var f *Formd
	var tab *Tab
	var readme string

	BeforeAll(func() {
		raw, err := os.ReadFile("../README.md")
		Expect(err).NotTo(HaveOccurred())
		readme = string(raw)
		spool := GinkgoT().TempDir()
		// As `make run` starts it: development mode, mail spooled, no SMTP server.
		f = StartFormd("FORMD_DEV=true", "FORMD_SMTP_URL=", "FORMD_MAIL_SPOOL="+spool)
		tab = NewTab()
	})

	// followMailLink opens the development mail page, follows the first
	// link of the newest mail to to, and presses its page's button.
	followMailLink := func(to, wantTitle string) {
		GinkgoHelper()
		var link string
		Eventually(func(g Gomega) {
			tab.Do(chromedp.Navigate(f.URL + "/dashboard/dev/mail"))
			tab.Eval(`Array.from(document.querySelectorAll("article.mail")).
				filter(a => a.textContent.includes(`+jsString(to)+`)).
				map(a => (a.querySelector("pre a") || {}).href || "")[0] || ""`, &link)
			g.Expect(link).To(ContainSubstring("/verify/"))
		}).WithTimeout(20 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		tab.Do(chromedp.Navigate(link))
		pressLater(tab, "form button")
		Eventually(func() (string, error) { return pageText(tab) }).WithTimeout(BrowserTimeout).Should(ContainSubstring(wantTitle))
	}

	It("takes a newcomer from an account to a first submission and its notification", func() {
		bodies := regexp.MustCompile(`-d '(\{[^']*\})'`).FindAllStringSubmatch(readme, -1)
		Expect(bodies).To(HaveLen(2), "the README's quick start posts an account and a form")

		By("registering with the README's first call")
		var account map[string]any
		Expect(json.Unmarshal([]byte(bodies[0][1]), &account)).To(Succeed())
		r := f.Post("", "/agent/auth", account)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		session := r.JSON["credential"].(string)
		Expect(session).To(HavePrefix("fds_"))

		By("confirming the account from the development mail page, as the README says")
		Expect(readme).To(ContainSubstring("/dashboard"))
		followMailLink(account["email"].(string), "Email verified")

		By("creating a form with the README's second call")
		var form map[string]any
		Expect(json.Unmarshal([]byte(bodies[1][1]), &form)).To(Succeed())
		r = f.Post(session, "/v1/forms", form)
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
		id, key := r.Object("form")["id"].(string), r.Object("form")["accessKey"].(string)
		Expect(key).NotTo(BeEmpty())

		By("confirming the recipient from its mail, then reading its state with the README's third call")
		recipient := form["recipientEmail"].(string)
		followMailLink(recipient, "Recipient verified")
		Expect(readme).To(ContainSubstring("/v1/forms/<id>/recipient-verification"))
		r = f.Get(session, "/v1/forms/"+id+"/recipient-verification")
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(string(r.Body)).To(ContainSubstring(`"verified"`))

		By("posting the README's HTML form from a page in Chromium")
		snippet := regexp.MustCompile("(?s)```html\n(.*?)```").FindStringSubmatch(readme)
		Expect(snippet).NotTo(BeNil(), "the README shows an HTML form")
		html := strings.ReplaceAll(strings.ReplaceAll(snippet[1], "http://127.0.0.1:8080", f.URL), "YOUR-ACCESS-KEY", key)
		Expect(html).To(ContainSubstring(key), "the README's form carries the access key")
		site := StartSite(map[string]string{"/contact.html": "<!doctype html><title>Contact</title>" + html})
		tab.Do(chromedp.Navigate(site.URL+"/contact.html"),
			chromedp.SendKeys(chromedp.CSS(`input[name="email"]`), "visitor@example.test"),
			chromedp.SendKeys(chromedp.CSS(`textarea[name="message"]`), "Hello from the quick start"))
		pressLater(tab, `button[type="submit"]`)
		Eventually(func() (string, error) {
			ctx, cancel := context.WithTimeout(tab.ctx, BrowserTimeout)
			defer cancel()
			return chromedp.Run(ctx, chromedp.Location())
		}).WithTimeout(BrowserTimeout).Should(HavePrefix(f.URL + "/submit/success?form="))

		By("seeing the notification on the development mail page")
		Eventually(func() string {
			tab.Do(chromedp.Navigate(f.URL + "/dashboard/dev/mail"))
			return tab.Text("main")
		}).WithTimeout(20 * time.Second).WithPolling(500 * time.Millisecond).Should(
			And(ContainSubstring(recipient), ContainSubstring("Hello from the quick start")))
	})

	It("has no development mail page outside development mode", func() {
		other := StartFormd()
		r := other.Get("", "/dashboard/dev/mail", OffContract("a dashboard page, not the API"))
		Expect(r.Status).To(Equal(http.StatusNotFound))
	})
})

// pageText is the page's text, or an error while the page is being
// replaced (a form just submitted), for Eventually to try again.
func pageText(tab *Tab) (string, error) {
	ctx, cancel := context.WithTimeout(tab.ctx, BrowserTimeout)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[string]("document.body ? document.body.innerText : ''"))
}

// pressLater clicks the button matching selector once the script that asks
// for it has returned: a click that submits a form replaces the page, and a
// click made inside the browser protocol's own call can outlive the page it
// was made on.
func pressLater(tab *Tab, selector string) {
	GinkgoHelper()
	var found bool
	tab.Eval(`(() => { const b = document.querySelector(`+jsString(selector)+`);
		if (b) setTimeout(() => b.click(), 0); return !!b })()`, &found)
	Expect(found).To(BeTrue(), "a button %s on the page", selector)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
