package features_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The dashboard (ports/web), driven in headless Chromium as a person uses
// it: every page is checked with axe-core and photographed, at a desktop's
// and a phone's width, into features/artifacts/dashboard/.
var _ = Describe("Dashboard", func() {
	var (
		f   *Formd
		tab *Tab
	)

	BeforeEach(func() {
		f = shared
	})

	It("takes a person from registration to a live form, its audit trail and an API token", func() {
		tab = NewTab()
		email, recipient := UniqueEmail("dash"), UniqueEmail("dash-inbox")

		By("GET / sends someone signed out to sign in")
		tab.Do(chromedp.Navigate(f.URL + "/"))
		Expect(tab.Location()).To(Equal(f.URL + "/dashboard/sign-in"))
		checkPage(tab, "sign-in")

		By("registering from the dashboard")
		tab.Do(chromedp.Click(chromedp.CSS(`a[href="/dashboard/register"]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`form[action="/dashboard/register"]`)))
		checkPage(tab, "register")
		tab.Do(chromedp.SetValue(chromedp.CSS("#email"), email), chromedp.SetValue(chromedp.CSS("#password"), "too short"),
			chromedp.Click(chromedp.CSS(`main button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#password-error")))
		Expect(tab.Text("#password-error")).To(ContainSubstring("at least 12 characters"))
		Expect(tab.Attribute("#password", "aria-invalid")).To(Equal("true"))
		tab.Do(chromedp.SetValue(chromedp.CSS("#password"), DefaultPassword), chromedp.Click(chromedp.CSS(`main button[type=submit]`)))
		waitForPath(tab, f, "/dashboard/forms")
		Expect(tab.Text("main")).To(ContainSubstring("Check your mail"))
		checkPage(tab, "forms-unverified")

		By("following the account verification link from the mail")
		followMailLink(tab, Link(f.Mail.WaitForMail(email)))

		By("signing out and in again")
		tab.Do(chromedp.Navigate(f.URL + "/dashboard/forms"))
		signOut(tab, f)
		tab.Do(chromedp.SetValue(chromedp.CSS("#email"), email), chromedp.SetValue(chromedp.CSS("#password"), "not the password"),
			chromedp.Click(chromedp.CSS(`main button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-error")))
		Expect(tab.Text(".banner-error")).To(ContainSubstring("do not match an account"))
		tab.Do(chromedp.SetValue(chromedp.CSS("#password"), DefaultPassword), chromedp.Click(chromedp.CSS(`main button[type=submit]`)))
		waitForPath(tab, f, "/dashboard/forms")
		Expect(tab.Text("main")).NotTo(ContainSubstring("Check your mail"))
		checkPage(tab, "forms-empty")

		By("creating a form, with errors next to their fields first")
		tab.Do(chromedp.Click(chromedp.CSS(`main a[href="/dashboard/forms/new"]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`form[action="/dashboard/forms"]`)))
		checkPage(tab, "form-new")
		tab.Do(chromedp.Click(chromedp.CSS(`main button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#name-error")))
		Expect(tab.Attribute("#name", "aria-describedby")).To(ContainSubstring("name-error"))
		tab.Do(chromedp.SetValue(chromedp.CSS("#name"), "Contact"), chromedp.SetValue(chromedp.CSS("#recipientEmail"), recipient),
			chromedp.SetValue(chromedp.CSS("#allowedDomains"), "example.com\nlocalhost"),
			chromedp.Click(chromedp.CSS(`main button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#access-key")))
		accessKey := tab.Text("#access-key")
		Expect(accessKey).To(MatchRegexp(`^[0-9a-f-]{36}$`), "an access key (a UUID)")
		Expect(tab.Text("#snippet-html")).To(ContainSubstring(`value="` + accessKey + `"`))
		Expect(tab.Text("#snippet-fetch")).To(ContainSubstring(accessKey))
		Expect(tab.Text("#snippet-script")).To(ContainSubstring(`<script src="` + f.URL + `/client/script.js"`))
		snippetHTML, snippetScript := tab.Text("#snippet-html"), tab.Text("#snippet-script")
		checkPage(tab, "form-created")

		By("the forms list shows it, without the key, awaiting its recipient")
		tab.Do(chromedp.Navigate(f.URL + "/dashboard/forms"))
		row := "main table tbody tr:first-child"
		Expect(tab.Text(row + " th")).To(Equal("Contact"))
		Expect(tab.Text(row)).To(ContainSubstring(recipient))
		Expect(tab.Text(row)).To(ContainSubstring("Awaiting verification"))
		prefix := strings.TrimSuffix(tab.Text(row+` td[data-label="Access key"] code`), "…")
		Expect(accessKey).To(HavePrefix(prefix))
		Expect(len(prefix)).To(BeNumerically("<", len(accessKey)))
		Expect(tab.Text("main")).NotTo(ContainSubstring(accessKey))
		Expect(tab.Text(row + ` td[data-label="This month"]`)).To(Equal("0"))
		checkPage(tab, "forms")

		By("resending the recipient verification and following the new link")
		first := f.Mail.WaitForMail(recipient)
		tab.Do(chromedp.Click(chromedp.CSS(row + " form button")))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(tab.Text(".banner-ok")).To(ContainSubstring("verification email is on its way"))
		second := f.Mail.WaitForMail(recipient)
		Expect(second.Text).NotTo(Equal(""), "the resent mail %v after %v", second, first)
		followMailLink(tab, Link(second))
		tab.Do(chromedp.Navigate(f.URL + "/dashboard/forms"))
		Expect(tab.Text(row)).To(ContainSubstring("Verified"))
		Expect(tab.Text(row)).NotTo(ContainSubstring("Awaiting verification"))

		By("submitting to it from a static page on another origin, pasted from the snippets as they were shown")
		site := StartSite(map[string]string{"/contact.html": "<!doctype html><html lang=en><head><meta charset=utf-8><title>Contact us</title>" +
			snippetScript + "</head><body>" + snippetHTML + "</body></html>"})
		visitor := NewTab()
		visitor.Do(chromedp.Navigate(site.URL+"/contact.html"),
			chromedp.SendKeys(chromedp.CSS("#email"), "visitor@example.test"),
			chromedp.SendKeys(chromedp.CSS("#message"), "Hello from the website"),
			chromedp.Click(chromedp.CSS("button")),
			chromedp.WaitVisible(chromedp.CSS(`[data-formd-status][data-state="success"]`)))
		Expect(f.Mail.WaitForMail(recipient).Text).To(ContainSubstring("Hello from the website"))

		By("the delivery log shows its notification delivered, and the list counts it")
		tab.Do(chromedp.Navigate(f.URL + "/dashboard/forms"))
		Expect(tab.Text(row + ` td[data-label="This month"]`)).To(Equal("1"))
		tab.Do(chromedp.Click(chromedp.CSS(row + " th a")))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".tabs")))
		tab.Do(chromedp.Click(chromedp.CSS(`.tabs a[href$="/deliveries"]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("table.deliveries")))
		Eventually(func() string {
			tab.Do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("table.deliveries")))
			return tab.Text("table.deliveries tbody")
		}).WithTimeout(15 * time.Second).Should(And(ContainSubstring("notification"), ContainSubstring("succeeded")))
		tab.Do(chromedp.Navigate(f.URL + "/dashboard/forms"))

		By("reading the form's audit trail")
		tab.Do(chromedp.Click(chromedp.CSS(row + " th a")))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".tabs")))
		formPath := strings.TrimPrefix(tab.Location(), f.URL)
		Expect(formPath).To(MatchRegexp(`^/dashboard/forms/[0-9a-f-]{36}$`))
		checkPage(tab, "form")
		tab.Do(chromedp.Click(chromedp.CSS(`.tabs a[href$="/audit"]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".timeline")))
		Expect(tab.Location()).To(Equal(f.URL + formPath + "/audit"))
		var events []struct{ What, Meta, Changes string }
		tab.Eval(`Array.from(document.querySelectorAll(".timeline .event")).map(e => ({
			What: e.querySelector("h3").textContent, Meta: e.querySelector(".event-meta").textContent,
			Changes: e.querySelector(".changes") ? e.querySelector(".changes").innerText : ""}))`, &events)
		Expect(events).To(HaveLen(2), "newest first: the recipient's verification, then the creation")
		Expect(events[0].What).To(Equal("Recipient verified"))
		Expect(events[0].Meta).To(ContainSubstring("By verification link"))
		Expect(events[0].Changes).To(MatchRegexp(`recipientVerified\s+false\s+→ true`))
		Expect(events[1].What).To(Equal("Form created"))
		Expect(events[1].Meta).To(ContainSubstring("By "+email), "the owner, by the account's email")
		Expect(events[1].Meta).To(ContainSubstring("Signed-in user"))
		Expect(events[1].Meta).To(MatchRegexp(`Request req_[0-9a-f]+`))
		Expect(events[1].Changes).To(MatchRegexp(`name\s+—\s+→ Contact`))
		Expect(events[1].Changes).To(ContainSubstring("example.com"))
		checkPage(tab, "form-audit")

		By("creating a workspace API token, shown once, that the API accepts")
		tab.Do(chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/tokens"]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`form[action="/dashboard/tokens"]`)))
		checkPage(tab, "tokens-empty")
		tab.Do(chromedp.SetValue(chromedp.CSS("#token-name"), "CI deploys"), chromedp.Click(chromedp.CSS(`form[action="/dashboard/tokens"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#token-secret")))
		secret := tab.Text("#token-secret")
		Expect(secret).To(HavePrefix("fdw_"))
		Expect(tab.Text("main table")).To(ContainSubstring("CI deploys"))
		Expect(tab.Text("main table")).To(ContainSubstring("forms:read"))
		checkPage(tab, "token-created")
		Expect(f.Get(secret, "/v1/forms").Status).To(Equal(http.StatusOK))

		By("revoking it: the API refuses it at once")
		tab.Do(chromedp.Click(chromedp.CSS(`main table form[action$="/revoke"] button`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(tab.Text("main")).NotTo(ContainSubstring("CI deploys"))
		Expect(f.Get(secret, "/v1/forms").Status).To(Equal(http.StatusUnauthorized))

		By("the account page shows the plan and this month's usage")
		tab.Do(chromedp.Click(chromedp.CSS(`nav a[href="/dashboard/account"]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("progress")))
		Expect(tab.Text("main")).To(ContainSubstring(email))
		Expect(tab.Text(".plan")).To(Equal("Free"))
		Expect(tab.Text(".usage-figure")).To(MatchRegexp(`1 of \d+ submissions`), "the one from the website")
		var history []string
		tab.Eval(`Array.from(document.querySelectorAll(".timeline .event h3")).map(h => h.textContent)`, &history)
		Expect(history).To(Equal([]string{"API token revoked", "API token created", "Email verified", "Account registered"}),
			"the account's audit trail, newest first")
		Expect(tab.Text(".timeline .event:nth-child(2) .event-meta")).To(ContainSubstring("By "+email),
			"the token was made by the owner, named by the account's email")
		checkPage(tab, "account")

		By("signing out: the dashboard asks to sign in again")
		signOut(tab, f)
		Expect(tab.Text(".banner-ok")).To(ContainSubstring("signed out"))
		tab.Do(chromedp.Navigate(f.URL + "/dashboard/forms"))
		Expect(tab.Location()).To(HavePrefix(f.URL + "/dashboard/sign-in"))
	})

	It("shows a form's delivery log, filtered, a delivery's attempts, and retries a failed webhook", func() {
		receiver := startWebhookReceiver()
		f := StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		lf := f.LiveForm(nil)
		f.Grant(lf.OwnerEmail, "per_submit_webhook")
		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hello",
			"webhook": receiver.URL("/broken?token=s3cret")}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		webhookID := r.Array("webhookDeliveryIds")[0].(string)
		Eventually(func(g Gomega) {
			page, _ := deliveriesOf(f, lf.Token, lf.ID, "?state=failed")
			g.Expect(deliveryIn(page, webhookID)).NotTo(BeNil())
		}).WithTimeout(15 * time.Second).Should(Succeed())

		tab = NewTab()
		signIn(tab, f, lf.OwnerEmail)
		base := "/dashboard/forms/" + lf.ID
		tab.Do(chromedp.Navigate(f.URL + base))
		tab.Do(chromedp.Click(chromedp.CSS(`.tabs a[href$="/deliveries"]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("table.deliveries")))
		Expect(tab.Location()).To(Equal(f.URL + base + "/deliveries"))
		Expect(tab.Attribute(`.tabs a[href$="/deliveries"]`, "aria-current")).To(Equal("page"))
		Expect(tab.Text("table.deliveries")).To(ContainSubstring("webhook"))
		Expect(tab.Text("table.deliveries")).To(ContainSubstring("notification"))
		Expect(tab.Text("main")).NotTo(ContainSubstring("s3cret"), "a webhook's target is its host, never its URL")
		checkPage(tab, "form-deliveries")

		By("filtering by state and kind")
		tab.Do(chromedp.SetValue(chromedp.CSS("#state"), "failed"), chromedp.SetValue(chromedp.CSS("#kind"), "webhook"),
			chromedp.Click(chromedp.CSS(`form.filters button[type=submit]`)))
		Eventually(tab.Location).WithTimeout(BrowserTimeout).Should(ContainSubstring("kind=webhook"))
		tab.Do(chromedp.WaitReady(chromedp.CSS("footer")))
		Expect(tab.Location()).To(ContainSubstring("state=failed"))
		var rows []string
		tab.Eval(`Array.from(document.querySelectorAll("table.deliveries tbody tr")).map(r => r.innerText)`, &rows)
		Expect(rows).To(HaveLen(1))
		Expect(rows[0]).To(ContainSubstring("webhook"))
		Expect(rows[0]).To(ContainSubstring("410"))
		tab.Do(chromedp.SetValue(chromedp.CSS("#kind"), "slack"), chromedp.Click(chromedp.CSS(`form.filters button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("main p.empty")))
		Expect(tab.Text("main .empty")).To(ContainSubstring("No delivery matches"))

		By("a state the log does not know is an error next to its field")
		tab.Do(chromedp.Navigate(f.URL + base + "/deliveries?state=lost"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#state-error")))
		Expect(tab.Text("#state-error")).To(ContainSubstring("State must be one of queued"))
		Expect(tab.Attribute("#state", "aria-invalid")).To(Equal("true"))

		By("opening the failed webhook: its attempt and why it failed")
		tab.Do(chromedp.Navigate(f.URL + base + "/deliveries?state=failed"))
		tab.Do(chromedp.Click(chromedp.CSS(`table.deliveries tbody th a`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".timeline")))
		Expect(tab.Location()).To(Equal(f.URL + base + "/deliveries/" + webhookID))
		var events []string
		tab.Eval(`Array.from(document.querySelectorAll(".timeline .event h3")).map(e => e.textContent)`, &events)
		Expect(events).To(Equal([]string{"Queued", "Failed (attempt 1)"}))
		Expect(tab.Text(".timeline")).To(ContainSubstring("410"))
		checkPage(tab, "form-delivery-failed")

		By("retrying it once the receiver is fixed: it goes out again and succeeds")
		receiver.Fix()
		tab.Do(chromedp.Click(chromedp.CSS(`form[action$="/retry"] button`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(tab.Text(".banner-ok")).To(ContainSubstring("queued again"))
		Eventually(func(g Gomega) {
			d := f.Get(lf.Token, "/v1/deliveries/"+webhookID)
			g.Expect(d.Object("delivery")).To(HaveKeyWithValue("state", "succeeded"))
		}).WithTimeout(15 * time.Second).Should(Succeed())
		tab.Do(chromedp.Reload())
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".timeline")))
		tab.Eval(`Array.from(document.querySelectorAll(".timeline .event h3")).map(e => e.textContent)`, &events)
		Expect(events).To(Equal([]string{"Queued", "Failed (attempt 1)", "Retry requested", "Delivered (attempt 2)"}))
		Expect(tab.Text(".timeline")).To(ContainSubstring("Signed-in user"))
		Expect(tab.Text("main")).NotTo(ContainSubstring("Retry this delivery"))
		checkPage(tab, "form-delivery")

		By("another account's delivery is a 404, and so is a retry of it")
		intruder, _ := f.RegisteredVerifiedUser()
		c := newDashboardClient(f, intruder)
		Expect(c.get(base + "/deliveries").StatusCode).To(Equal(http.StatusNotFound))
		Expect(c.get(base + "/deliveries/" + webhookID).StatusCode).To(Equal(http.StatusNotFound))
		retry := c.post(base+"/deliveries/"+webhookID+"/retry", url.Values{"csrf_token": {c.csrfOf("/dashboard/forms")}})
		Expect(retry.StatusCode).To(Equal(http.StatusNotFound))
	})

	It("runs a dry run from the playground, showing each gate's outcome and message", func() {
		lf := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"},
			"validation": rule(map[string]any{"field": "message", "required": true})})
		tab = NewTab()
		signIn(tab, f, lf.OwnerEmail)
		base := "/dashboard/forms/" + lf.ID
		tab.Do(chromedp.Navigate(f.URL + base))
		tab.Do(chromedp.Click(chromedp.CSS(`.tabs a[href$="/playground"]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`form[action$="/playground"]`)))
		Expect(tab.Attribute("#origin", "value")).To(Equal("https://example.com"), "the first allowed website")
		var rows int
		tab.Eval(`document.querySelectorAll('table.rows input[name="name"]').length`, &rows)
		Expect(rows).To(BeNumerically(">=", 5), "a few rows to fill in")
		checkPage(tab, "form-playground")

		By("a dry run that passes every gate, with no access key to paste (formd keeps only its hash)")
		tab.Do(chromedp.Click(chromedp.CSS(`form[action$="/playground"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#result")))
		Expect(tab.Text("#result-title")).To(ContainSubstring("Dry run passed"))
		gates := playgroundGates(tab)
		Expect(gates).To(ContainElements("access_key=passed", "origin=passed", "fields=passed", "quota=passed"))
		Expect(gates).To(HaveLen(len(submitGates)))
		checkPage(tab, "form-playground-passed")

		By("a dry run from another website, with the honeypot filled and no message: every failing gate says why")
		tab.Do(chromedp.SetValue(chromedp.CSS("#origin"), "https://elsewhere.example.org"),
			chromedp.SetValue(chromedp.CSS(`table.rows tr:nth-child(2) input[name="name"]`), "botcheck"),
			chromedp.SetValue(chromedp.CSS(`table.rows tr:nth-child(2) input[name="value"]`), "I am a bot"),
			chromedp.Click(chromedp.CSS(`form[action$="/playground"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#result .badge-error")))
		Expect(tab.Text("#result-title")).To(ContainSubstring("allowedDomains"))
		Expect(playgroundGates(tab)).To(ContainElements("access_key=passed", "origin=failed", "honeypot=failed", "fields=failed"))
		Expect(tab.Text("table.gates")).To(ContainSubstring("spam"))
		Expect(tab.Text("#result .field-errors")).To(ContainSubstring("message"))
		Expect(tab.Attribute("#origin", "value")).To(Equal("https://elsewhere.example.org"), "the fields stay as typed")
		checkPage(tab, "form-playground-refused")

		By("nothing was stored: the form has no submission this month")
		tab.Do(chromedp.Navigate(f.URL + "/dashboard/forms"))
		Expect(tab.Text(`main table tbody tr:first-child td[data-label="This month"]`)).To(Equal("0"))

		By("another account cannot dry-run this form by its id: a 404")
		intruder, _ := f.RegisteredVerifiedUser()
		c := newDashboardClient(f, intruder)
		Expect(c.get(base + "/playground").StatusCode).To(Equal(http.StatusNotFound))
		run := c.post(base+"/playground", url.Values{"csrf_token": {c.csrfOf("/dashboard/forms")}, "name": {"email"}, "value": {"x@example.com"}})
		Expect(run.StatusCode).To(Equal(http.StatusNotFound))
	})

	It("saves a form's settings through UpdateForm, with PATCH's errors next to their fields", func() {
		lf := f.LiveForm(nil)
		tab = NewTab()
		signIn(tab, f, lf.OwnerEmail)
		base := "/dashboard/forms/" + lf.ID
		tab.Do(chromedp.Navigate(f.URL + base))
		tab.Do(chromedp.Click(chromedp.CSS(`.tabs a[href$="/settings"]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`form[action$="/settings"]`)))
		Expect(tab.Attribute("#name", "value")).To(Equal("Contact"))
		Expect(tab.Attribute("#recipientEmail", "value")).To(Equal(lf.Recipient))
		checkPage(tab, "form-settings")
		save := chromedp.Click(chromedp.CSS(`form[action$="/settings"] button[type=submit]`))

		By("a redirect that is not https: PATCH's error, next to its field")
		patch := f.Patch(lf.Token, "/v1/forms/"+lf.ID, map[string]any{"redirectDefault": "http://example.com/thanks"})
		Expect(patch.Status).To(Equal(http.StatusBadRequest))
		tab.Do(chromedp.SetValue(chromedp.CSS("#redirectDefault"), "http://example.com/thanks"), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#redirectDefault-error")))
		Expect(strings.ToLower(tab.Text("#redirectDefault-error"))).To(Equal(strings.ToLower(patch.JSON["message"].(string))))
		Expect(tab.Attribute("#redirectDefault", "aria-invalid")).To(Equal("true"))
		Expect(tab.Attribute("#redirectDefault", "value")).To(Equal("http://example.com/thanks"), "kept as typed")
		checkPage(tab, "form-settings-error")

		By("uploads without the entitlement, and a bad allowed domain, each next to its field")
		tab.Eval(`document.querySelector("#redirectDefault").value = ""; true`, nil)
		tab.Do(chromedp.Click(chromedp.CSS("#uploadsEnabled")), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#uploadsEnabled-error")))
		Expect(tab.Text("#uploadsEnabled-error")).To(ContainSubstring("file_uploads"))
		tab.Do(chromedp.Click(chromedp.CSS("#uploadsEnabled")), chromedp.SetValue(chromedp.CSS("#allowedDomains"), "example.com\nnot a domain"), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#allowedDomains-error")))
		Expect(tab.Attribute("#allowedDomains", "aria-invalid")).To(Equal("true"))
		Expect(f.FormByID(lf.Token, lf.ID)).To(HaveKeyWithValue("redirectDefault", ""), "nothing was saved")

		By("saving: the API shows the new settings and the audit trail the change")
		tab.Do(chromedp.SetValue(chromedp.CSS("#allowedDomains"), "example.com\nexample.org"),
			chromedp.SetValue(chromedp.CSS("#subjectDefault"), "New message from the site"),
			chromedp.SetValue(chromedp.CSS("#redirectDefault"), "https://example.com/thanks"),
			chromedp.SetValue(chromedp.CSS("#replyToMode"), "none"),
			chromedp.Click(chromedp.CSS("#autoresponderEnabled")),
			chromedp.SetValue(chromedp.CSS("#autoresponderSubject"), "Thanks!"),
			chromedp.SetValue(chromedp.CSS("#autoresponderMessage"), "We read every message."), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(tab.Text(".banner-ok")).To(ContainSubstring("Settings saved"))
		got := f.FormByID(lf.Token, lf.ID)
		Expect(got).To(HaveKeyWithValue("allowedDomains", ConsistOf("example.com", "example.org")))
		Expect(got).To(HaveKeyWithValue("subjectDefault", "New message from the site"))
		Expect(got).To(HaveKeyWithValue("redirectDefault", "https://example.com/thanks"))
		Expect(got).To(HaveKeyWithValue("replyToMode", "none"))
		Expect(got).To(HaveKeyWithValue("autoresponder", And(HaveKeyWithValue("enabled", true), HaveKeyWithValue("subject", "Thanks!"))))
		Expect(got).To(HaveKeyWithValue("recipientVerified", true), "the recipient did not change")
		Expect(tab.Attribute("#subjectDefault", "value")).To(Equal("New message from the site"))
		tab.Do(chromedp.Navigate(f.URL + base + "/audit"))
		Expect(tab.Text(".timeline .event:first-child h3")).To(Equal("Settings changed"))
		Expect(tab.Text(".timeline .event:first-child .changes")).To(ContainSubstring("New message from the site"))

		By("validation rules that are not JSON, and a rule PATCH refuses: each next to the rules, naming the rule")
		tab.Do(chromedp.Navigate(f.URL+base+"/settings"), chromedp.WaitVisible(chromedp.CSS("#validation")))
		Expect(tab.Attribute("#validation", "value")).To(BeEmpty(), "no rules yet")
		tab.Do(chromedp.SetValue(chromedp.CSS("#validation"), `{"fields": [`), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#validation-error")))
		Expect(tab.Text("#validation-error")).To(ContainSubstring("must be JSON"))
		badRule := `{"fields": [{"field": "email", "required": true, "type": "email"}, {"field": "phone", "type": "telephone"}]}`
		var rules map[string]any
		Expect(json.Unmarshal([]byte(badRule), &rules)).To(Succeed())
		patch = f.Patch(lf.Token, "/v1/forms/"+lf.ID, map[string]any{"validation": rules})
		Expect(patch.Status).To(Equal(http.StatusBadRequest))
		tab.Eval(`document.querySelector("#validation-error").remove(); true`, nil) // so the next page's is the one waited for
		tab.Do(chromedp.SetValue(chromedp.CSS("#validation"), badRule), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#validation-error")))
		Expect(tab.Text("#validation-error")).To(HavePrefix("Rule 2: "))
		Expect(patch.JSON["message"]).To(HaveSuffix(strings.TrimPrefix(tab.Text("#validation-error"), "Rule 2: ")), "PATCH's message")

		By("a third-party captcha without its secret, and an upload size past the ceiling")
		tab.Eval(`document.querySelector("#validation").value = ""; true`, nil)
		tab.Do(chromedp.SetValue(chromedp.CSS("#captchaProvider"), "turnstile"),
			chromedp.SetValue(chromedp.CSS("#captchaSiteKey"), "0x4AAAAAAAsitekey"), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#captchaSecret-error")))
		Expect(tab.Text("#captchaSecret-error")).To(ContainSubstring("secret is required"))
		Expect(tab.Attribute("#captchaSiteKey", "value")).To(Equal("0x4AAAAAAAsitekey"), "kept as typed")
		tab.Do(chromedp.SetValue(chromedp.CSS("#captchaProvider"), "none"),
			chromedp.SetValue(chromedp.CSS("#maxFileBytes"), "99999999999"), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#maxFileBytes-error")))
		Expect(tab.Text("#maxFileBytes-error")).To(ContainSubstring("10 MiB"))
		Expect(f.FormByID(lf.Token, lf.ID)).To(HaveKeyWithValue("captcha", HaveKeyWithValue("provider", "none")), "nothing was saved")

		By("saving rules, a Turnstile captcha with its secret, sender IPs and upload limits: the API shows them, never the secret")
		const captchaSecret = "0x4AAAAAAA-dashboard-secret"
		tab.Do(chromedp.SetValue(chromedp.CSS("#validation"), `{"fields": [{"field": "email", "required": true, "type": "email"}]}`),
			chromedp.SetValue(chromedp.CSS("#captchaProvider"), "turnstile"),
			chromedp.SetValue(chromedp.CSS("#captchaSiteKey"), "0x4AAAAAAAsitekey"),
			chromedp.SetValue(chromedp.CSS("#captchaSecret"), captchaSecret),
			chromedp.SetValue(chromedp.CSS("#allowedSenderIps"), "203.0.113.7\n2001:db8::1"),
			chromedp.SetValue(chromedp.CSS("#maxFiles"), "2"),
			chromedp.SetValue(chromedp.CSS("#maxFileBytes"), "1048576"),
			chromedp.SetValue(chromedp.CSS("#allowedMimeTypes"), "application/pdf\nimage/*"), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		got = f.FormByID(lf.Token, lf.ID)
		Expect(got).To(HaveKeyWithValue("validation", HaveKeyWithValue("fields", ConsistOf(And(HaveKeyWithValue("field", "email"),
			HaveKeyWithValue("required", true), HaveKeyWithValue("type", "email"))))))
		Expect(got).To(HaveKeyWithValue("captcha", And(HaveKeyWithValue("provider", "turnstile"), HaveKeyWithValue("siteKey", "0x4AAAAAAAsitekey"),
			HaveKeyWithValue("hasSecret", true))))
		Expect(got).To(HaveKeyWithValue("allowedSenderIps", ConsistOf("203.0.113.7", "2001:db8::1")))
		Expect(got).To(HaveKeyWithValue("uploadLimits", And(HaveKeyWithValue("maxFiles", 2.0), HaveKeyWithValue("maxFileBytes", 1048576.0),
			HaveKeyWithValue("allowedMimeTypes", ConsistOf("application/pdf", "image/*")))))
		Expect(tab.Attribute("#captchaSecret", "value")).To(BeEmpty(), "the secret is never shown again")
		Expect(tab.Text("#captchaSecret-hint")).To(ContainSubstring("A secret is set"))
		html := ""
		tab.Eval(`document.documentElement.outerHTML`, &html)
		Expect(html).NotTo(ContainSubstring(captchaSecret))

		By("saving again without typing the secret keeps it, and records nothing new")
		before := len(f.Events(lf.Token, lf.ID))
		// The first save's banner goes first: waiting for a banner must wait
		// for the page this save loads, not pass on the one still shown.
		tab.Eval(`document.querySelector(".banner-ok").remove()`, nil)
		tab.Do(save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(f.FormByID(lf.Token, lf.ID)).To(HaveKeyWithValue("captcha", HaveKeyWithValue("hasSecret", true)))
		Expect(f.Events(lf.Token, lf.ID)).To(HaveLen(before))
		checkPage(tab, "form-settings-all")

		By("another account cannot save them")
		intruder, _ := f.RegisteredVerifiedUser()
		c := newDashboardClient(f, intruder)
		r := c.post(base+"/settings", url.Values{"csrf_token": {c.csrfOf("/dashboard/forms")}, "name": {"Taken"}})
		Expect(r.StatusCode).To(Equal(http.StatusNotFound))
		Expect(f.FormByID(lf.Token, lf.ID)).To(HaveKeyWithValue("name", "Contact"))
	})

	It("configures a form's webhook, Slack and Discord, sends a test and rotates the webhook's secret, shown once", func() {
		receiver := startWebhookReceiver()
		f := StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		lf := f.LiveForm(nil)
		tab = NewTab()
		signIn(tab, f, lf.OwnerEmail)
		base := "/dashboard/forms/" + lf.ID
		tab.Do(chromedp.Navigate(f.URL + base))
		tab.Do(chromedp.Click(chromedp.CSS(`.tabs a[href$="/integrations"]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#integration-webhook")))
		for _, t := range []string{"webhook", "slack", "discord"} {
			Expect(tab.Text("#integration-" + t + " .badge")).To(Equal("Not set up"))
		}
		checkPage(tab, "form-integrations-empty")
		saveWebhook := chromedp.Click(chromedp.CSS(`#integration-webhook form[action$="/integrations/webhook"] button[type=submit]`))

		By("an address that is not https: PATCH's error next to its field")
		tab.Do(chromedp.SetValue(chromedp.CSS("#webhook-targetUrl"), "http://example.com/hook"), saveWebhook)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#webhook-targetUrl-error")))
		Expect(tab.Text("#webhook-targetUrl-error")).To(ContainSubstring("must be an absolute https URL"))
		Expect(tab.Attribute("#webhook-targetUrl", "aria-invalid")).To(Equal("true"))
		Expect(tab.Attribute("#webhook-targetUrl", "value")).To(Equal("http://example.com/hook"))

		By("enabling the webhook: its signing secret is shown this once")
		tab.Do(chromedp.SetValue(chromedp.CSS("#webhook-targetUrl"), receiver.URL("/hook")),
			chromedp.Click(chromedp.CSS("#webhook-enabled")), saveWebhook)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#webhook-secret")))
		secret := tab.Text("#webhook-secret")
		Expect(secret).To(HavePrefix("whsec_"))
		Expect(tab.Text("#integration-webhook .badge")).To(Equal("On"))
		checkPage(tab, "form-integrations-secret")
		listed := f.Get(lf.Token, "/v1/forms/"+lf.ID+"/integrations").Array("integrations")
		Expect(listed).To(ContainElement(And(HaveKeyWithValue("type", "webhook"), HaveKeyWithValue("enabled", true),
			HaveKeyWithValue("secretPrefix", WithTransform(func(p string) bool { return strings.HasPrefix(secret, p) }, BeTrue())))))
		tab.Do(chromedp.Navigate(f.URL + base + "/integrations"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#integration-webhook .secret-prefix")))
		Expect(tab.Text("main")).NotTo(ContainSubstring(secret), "shown only once")

		By("sending a test: the receiver gets a message signed with that secret")
		tab.Do(chromedp.Click(chromedp.CSS(`form[action$="/integrations/webhook/test"] button`)))
		Eventually(tab.Location).WithTimeout(BrowserTimeout).Should(HaveSuffix("notice=integration-test-queued"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(tab.Text(".banner-ok")).To(ContainSubstring("test message is queued"))
		Eventually(func() []webhookCall { return receiver.Calls("/hook") }).WithTimeout(15 * time.Second).Should(HaveLen(1))
		Expect(verifyStandardWebhook(secret, receiver.Calls("/hook")[0])).To(BeTrue())

		By("rotating the secret: a new one, shown once, that the API lists")
		tab.Do(chromedp.Click(chromedp.CSS(`form[action$="/rotate-secret"] button`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#webhook-secret")))
		rotated := tab.Text("#webhook-secret")
		Expect(rotated).To(HavePrefix("whsec_"))
		Expect(rotated).NotTo(Equal(secret))
		Expect(tab.Text(".banner-ok")).To(ContainSubstring("new signing secret"))
		Expect(tab.Text("#integration-webhook .secret-prefix")).To(Equal(f.Get(lf.Token, "/v1/forms/"+lf.ID+"/integrations").
			Array("integrations")[0].(map[string]any)["secretPrefix"].(string) + "…"))
		Expect(strings.HasPrefix(rotated, strings.TrimSuffix(tab.Text("#integration-webhook .secret-prefix"), "…"))).To(BeTrue())

		By("setting up Slack, and Discord switched off")
		tab.Do(chromedp.SetValue(chromedp.CSS("#slack-targetUrl"), "https://hooks.slack.com/services/T000/B000/XXXX"),
			chromedp.Click(chromedp.CSS("#slack-enabled")),
			chromedp.Click(chromedp.CSS(`form[action$="/integrations/slack"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#integration-slack .badge-ok")))
		Expect(tab.Text("#integration-slack .badge")).To(Equal("On"))
		tab.Do(chromedp.SetValue(chromedp.CSS("#discord-targetUrl"), "https://discord.com/api/webhooks/1/abc"),
			chromedp.Click(chromedp.CSS(`form[action$="/integrations/discord"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#integration-discord .badge-warn")))
		Expect(tab.Text("#integration-discord .badge")).To(Equal("Off"))
		By("the saved Slack address, a credential, shown masked; saving with the field left empty keeps it")
		Expect(tab.Attribute("#slack-targetUrl", "value")).To(BeEmpty())
		Expect(tab.Text("#slack-targetUrl-saved")).To(ContainSubstring("https://hooks.slack.com/…XXXX"))
		Expect(tab.Text("main")).NotTo(ContainSubstring("T000/B000"))
		tab.Do(chromedp.Navigate(f.URL + base + "/integrations"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#slack-targetUrl-saved")))
		tab.Do(chromedp.Click(chromedp.CSS(`form[action$="/integrations/slack"] button[type=submit]`)))
		Eventually(tab.Location).WithTimeout(BrowserTimeout).Should(HaveSuffix("notice=integration-saved"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#slack-targetUrl-saved")))
		Expect(tab.Text("#slack-targetUrl-saved")).To(ContainSubstring("https://hooks.slack.com/…XXXX"))
		listed = f.Get(lf.Token, "/v1/forms/"+lf.ID+"/integrations").Array("integrations")
		Expect(listed).To(ContainElement(And(HaveKeyWithValue("type", "slack"), HaveKeyWithValue("enabled", true),
			HaveKeyWithValue("targetUrl", "https://hooks.slack.com/…XXXX"))))
		Expect(listed).To(ContainElement(And(HaveKeyWithValue("type", "discord"), HaveKeyWithValue("enabled", false))))
		checkPage(tab, "form-integrations")

		By("another account can neither see nor change them")
		intruder, _ := f.RegisteredVerifiedUser()
		c := newDashboardClient(f, intruder)
		Expect(c.get(base + "/integrations").StatusCode).To(Equal(http.StatusNotFound))
		csrf := c.csrfOf("/dashboard/forms")
		Expect(c.post(base+"/integrations/webhook/rotate-secret", url.Values{"csrf_token": {csrf}}).StatusCode).To(Equal(http.StatusNotFound))
		Expect(c.post(base+"/integrations/slack", url.Values{"csrf_token": {csrf}}).StatusCode).To(Equal(http.StatusNotFound))
	})

	It("configures Telegram and Google Sheets with their own settings, and sends each a test", func() {
		services, credentials := startFakeServices()
		f := StartFormd(services.Env(credentials)...)
		lf := f.LiveForm(nil)
		tab = NewTab()
		signIn(tab, f, lf.OwnerEmail)
		base := "/dashboard/forms/" + lf.ID
		tab.Do(chromedp.Navigate(f.URL+base+"/integrations"), chromedp.WaitVisible(chromedp.CSS("#integration-telegram")))
		Expect(tab.Text("#integration-google_sheets .badge")).To(Equal("Not set up"))

		By("enabling Telegram, which shows the one-time command to send the bot from the chat, and no chat id field")
		saveTelegram := chromedp.Click(chromedp.CSS(`form[action$="/integrations/telegram"] button[type=submit]`))
		var chatFields int
		tab.Eval(`document.querySelectorAll('input[name="chatId"]').length`, &chatFields)
		Expect(chatFields).To(BeZero(), "a chat id is never typed in")
		tab.Do(chromedp.Click(chromedp.CSS("#telegram-enabled")), saveTelegram)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#telegram-connect-command")))
		Expect(tab.Text("#integration-telegram .badge")).To(Equal("Waiting for a chat"))
		command := tab.Text("#telegram-connect-command")
		Expect(command).To(MatchRegexp(`^/start [A-Za-z0-9]{20,}$`))
		Expect(tab.Attribute(`#telegram-connect a[href*="?start="]`, "href")).To(Equal("https://t.me/" + telegramBotUsername + "?start=" + strings.TrimPrefix(command, "/start ")))
		services.SendFromChat(-1001234567890, command)
		Eventually(func() any { return telegramChatOf(f, lf.Token, lf.ID) }).WithTimeout(15 * time.Second).Should(Equal("-1001234567890"))
		tab.Do(chromedp.Navigate(f.URL+base+"/integrations"), chromedp.WaitVisible(chromedp.CSS("#integration-telegram .badge-ok")))
		Expect(tab.Text("#telegram-chat")).To(ContainSubstring("-1001234567890"))

		By("enabling Google Sheets, then sending each a test")
		tab.Do(chromedp.SetValue(chromedp.CSS("#google_sheets-spreadsheetId"), "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh"),
			chromedp.SetValue(chromedp.CSS("#google_sheets-sheetName"), "Leads"),
			chromedp.Click(chromedp.CSS("#google_sheets-enabled")),
			chromedp.Click(chromedp.CSS(`form[action$="/integrations/google_sheets"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#google_sheets-proof-code")))
		Expect(tab.Text("#google_sheets-proof-state")).To(ContainSubstring("not proven"))
		Expect(tab.Text("#integration-google_sheets .badge")).To(Equal("Waiting for proof"))
		services.SetCell("1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh", "formd!A1", tab.Text("#google_sheets-proof-code"))
		tab.Do(chromedp.Click(chromedp.CSS(`form[action$="/integrations/google_sheets"] button[type=submit]`)))
		Eventually(tab.Location).WithTimeout(BrowserTimeout).Should(HaveSuffix("notice=integration-saved"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#integration-google_sheets .badge-ok")))
		var unproven int
		tab.Eval(`document.querySelectorAll("#google_sheets-proof-state, #google_sheets-proof").length`, &unproven)
		Expect(unproven).To(BeZero(), "the spreadsheet is proven")
		listed := f.Get(lf.Token, "/v1/forms/"+lf.ID+"/integrations").Array("integrations")
		Expect(listed).To(ContainElement(And(HaveKeyWithValue("type", "telegram"), HaveKeyWithValue("chatId", "-1001234567890"))))
		Expect(listed).To(ContainElement(And(HaveKeyWithValue("type", "google_sheets"), HaveKeyWithValue("sheetName", "Leads"),
			HaveKeyWithValue("spreadsheetId", "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh"))))
		checkPage(tab, "form-integrations-chat-sheets")
		tab.Do(chromedp.Click(chromedp.CSS(`form[action$="/integrations/telegram/test"] button`)))
		Eventually(tab.Location).WithTimeout(BrowserTimeout).Should(HaveSuffix("notice=integration-test-queued"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`form[action$="/integrations/google_sheets/test"] button`)))
		tab.Do(chromedp.Click(chromedp.CSS(`form[action$="/integrations/google_sheets/test"] button`)))
		Eventually(services.Telegram).WithTimeout(15 * time.Second).Should(ContainElement(HaveField("Body",
			And(HaveKeyWithValue("chat_id", "-1001234567890"), HaveKeyWithValue("text", ContainSubstring("This is a test from formd"))))))
		Eventually(services.Rows).WithTimeout(15 * time.Second).Should(HaveLen(1))
		Expect(services.Rows()[0].Path).To(ContainSubstring("1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh"))
		Expect(services.Refused()).To(BeEmpty())
	})

	It("mails a link to set a new password from the sign-in page, saying the same for an address without an account", func() {
		_, email := f.RegisteredVerifiedUser()
		tab = NewTab()
		signedOut(tab, f)
		tab.Do(chromedp.Click(chromedp.CSS(`a[href="/dashboard/password-reset"]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`form[action="/dashboard/password-reset"]`)))
		checkPage(tab, "password-reset")

		By("an address without an account: the same words, and no mail")
		nobody := UniqueEmail("nobody")
		tab.Do(chromedp.SetValue(chromedp.CSS("#email"), nobody), chromedp.Click(chromedp.CSS(`main button[type=submit]`)))
		waitForPath(tab, f, "/dashboard/sign-in")
		said := tab.Text(".banner-ok")
		Expect(said).To(ContainSubstring("a link to set a new password"))

		By("the account's address: the same words, and a mail whose link sets a new password")
		tab.Do(chromedp.Navigate(f.URL+"/dashboard/password-reset"), chromedp.WaitVisible(chromedp.CSS("#email")))
		tab.Do(chromedp.SetValue(chromedp.CSS("#email"), email), chromedp.Click(chromedp.CSS(`main button[type=submit]`)))
		waitForPath(tab, f, "/dashboard/sign-in")
		Expect(tab.Text(".banner-ok")).To(Equal(said))
		mail := f.Mail.WaitForMail(email)
		Expect(f.Mail.To(nobody)).To(BeEmpty())
		const newPassword = "a brand new passphrase for formd"
		tab.Do(chromedp.Navigate(Link(mail)), chromedp.WaitVisible(chromedp.CSS("#password")),
			chromedp.SetValue(chromedp.CSS("#password"), newPassword), chromedp.Click(chromedp.CSS(`form[method=post] button`)))
		tab.Do(chromedp.WaitNotPresent(chromedp.CSS(`form[method=post] button`)))
		Expect(tab.Text("body")).To(ContainSubstring("is changed"))

		By("signing in: the old password no longer works, the new one does")
		signedOut(tab, f)
		tab.Do(chromedp.SetValue(chromedp.CSS("#email"), email), chromedp.SetValue(chromedp.CSS("#password"), DefaultPassword),
			chromedp.Click(chromedp.CSS(`main button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-error")))
		tab.Do(chromedp.SetValue(chromedp.CSS("#password"), newPassword), chromedp.Click(chromedp.CSS(`main button[type=submit]`)))
		waitForPath(tab, f, "/dashboard/forms")
	})

	It("creates a form in the account's workspace of choice, or in a new one", func() {
		token, email := f.RegisteredVerifiedUser()
		tab = NewTab()
		signIn(tab, f, email)
		tab.Do(chromedp.Navigate(f.URL+"/dashboard/forms/new"), chromedp.WaitVisible(chromedp.CSS("#workspaceId")))
		var offered []string
		tab.Eval(`Array.from(document.querySelectorAll("#workspaceId option")).map(o => o.textContent)`, &offered)
		Expect(offered).To(Equal([]string{"Default"}), "the account's one workspace is offered")
		tab.Do(chromedp.SetValue(chromedp.CSS("#name"), "Careers"), chromedp.SetValue(chromedp.CSS("#recipientEmail"), UniqueEmail("jobs")),
			chromedp.SetValue(chromedp.CSS("#workspaceName"), "Marketing site"), chromedp.Click(chromedp.CSS(`main button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#access-key")))
		var marketing string
		for _, w := range f.Get(token, "/v1/workspaces").Array("workspaces") {
			if w := w.(map[string]any); w["name"] == "Marketing site" {
				marketing = w["id"].(string)
			}
		}
		Expect(marketing).NotTo(BeEmpty(), "the new workspace exists")
		Expect(f.Forms(token)).To(ContainElement(And(HaveKeyWithValue("name", "Careers"), HaveKeyWithValue("workspaceId", marketing))))

		By("the new workspace is offered next time")
		tab.Do(chromedp.Navigate(f.URL+"/dashboard/forms/new"), chromedp.WaitVisible(chromedp.CSS("#workspaceId")))
		tab.Eval(`Array.from(document.querySelectorAll("#workspaceId option")).map(o => o.textContent)`, &offered)
		Expect(offered).To(ContainElement("Marketing site"))
	})

	It("ends the session in the database when signing out, so its cookie no longer works anywhere", func() {
		token, _ := f.RegisteredVerifiedUser()
		c := newDashboardClient(f, token)
		Expect(f.Do("GET", "/v1/account", nil, SessionCookie(token)).Status).To(Equal(http.StatusOK))
		csrf := c.csrfOf("/dashboard/forms")
		Expect(c.post("/dashboard/sign-out", url.Values{"csrf_token": {csrf}}).StatusCode).To(Equal(http.StatusSeeOther))
		Expect(f.Do("GET", "/v1/account", nil, SessionCookie(token)).Status).To(Equal(http.StatusUnauthorized))
		Expect(c.get("/dashboard/forms").StatusCode).To(Equal(http.StatusSeeOther))
	})

	It("switches a form to test mode in Settings, shows what its submissions would have sent in the Test inbox, and empties it", func() {
		marker, _, _ := strings.Cut(UniqueEmail("dashinbox"), "@")
		subject := "Dashboard test inbox " + marker
		lf := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"}, "subjectDefault": subject})
		mailedBefore := len(f.Mail.To(lf.Recipient))
		for kind, config := range map[string]map[string]any{
			"slack": {"enabled": true, "targetUrl": "https://hooks.slack.com/services/T000/B000/" + marker},
		} {
			r := f.Patch(lf.Token, "/v1/forms/"+lf.ID+"/integrations/"+kind, config)
			Expect(r.Status).To(Equal(http.StatusOK), "%s: %s", kind, r)
		}
		connectTelegram(f, sharedServices, lf.Token, lf.ID, -1001234567890)
		proveSheet(f, sharedServices, lf.Token, lf.ID, map[string]any{"enabled": true,
			"spreadsheetId": "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh", "sheetName": "Leads"})
		tab = NewTab()
		signIn(tab, f, lf.OwnerEmail)
		base := "/dashboard/forms/" + lf.ID

		By("ticking Test mode in Settings saves testMode through UpdateForm")
		tab.Do(chromedp.Navigate(f.URL+base+"/settings"), chromedp.WaitVisible(chromedp.CSS("#testMode")))
		Expect(tab.Text("#testMode-hint")).To(ContainSubstring("nothing is sent"))
		tab.Do(chromedp.Click(chromedp.CSS("#testMode")), chromedp.Click(chromedp.CSS(`form[action$="/settings"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(f.FormByID(lf.Token, lf.ID)).To(HaveKeyWithValue("testMode", true))
		var ticked bool
		tab.Eval(`document.querySelector("#testMode").checked`, &ticked)
		Expect(ticked).To(BeTrue(), "the box shows the saved setting")

		By("a plain post from the website is then a test: answered, never mailed")
		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "name": "Ada", "email": UniqueEmail("visitor"),
			"message": "Please call me back " + marker}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.JSON).To(HaveKeyWithValue("test", true))

		By("the Test inbox tab shows the notification email exactly as it would have gone")
		tab.Do(chromedp.Navigate(f.URL + base))
		tab.Do(chromedp.Click(chromedp.CSS(`.tabs a[href$="/test-inbox"]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".test-submission")))
		Expect(tab.Attribute(`.tabs a[href$="/test-inbox"]`, "aria-current")).To(Equal("page"))
		Expect(tab.Text(".banner-warn")).To(ContainSubstring("Test mode is on"))
		var submissions int
		tab.Eval(`document.querySelectorAll(".test-submission").length`, &submissions)
		Expect(submissions).To(Equal(1))
		Expect(tab.Text(".test-submission dl.details:first-of-type")).To(ContainSubstring(r.RequestID()))
		Expect(tab.Text(".test-response")).To(Equal(r.JSON["message"]))
		notification := `.test-delivery[data-kind="notification"] `
		Expect(tab.Text(notification + ".mail-subject")).To(Equal(subject))
		Expect(tab.Text(notification + ".mail-to")).To(Equal(lf.Recipient))
		Expect(tab.Text(notification + ".mail-from")).To(ContainSubstring("@"))
		Expect(tab.Attribute(notification+"iframe.mail-html", "sandbox")).To(Equal(""), "the HTML part, sandboxed")
		var srcdoc string
		tab.Eval(`document.querySelector('.test-delivery[data-kind="notification"] iframe.mail-html').getAttribute("srcdoc")`, &srcdoc)
		Expect(srcdoc).To(ContainSubstring("Please call me back " + marker))
		Expect(tab.Text(notification + ".mail-text")).To(ContainSubstring("Please call me back " + marker))
		slack := `.test-delivery[data-kind="slack"] `
		Expect(tab.Text(slack + "h4")).To(Equal("Slack message"))
		Expect(tab.Text(slack+".request-line")).To(Equal("POST https://hooks.slack.com/…"+marker[len(marker)-4:]), "the URL, a credential, masked")
		Expect(tab.Text(slack + ".request-headers")).To(ContainSubstring("application/json"))
		Expect(tab.Text(slack + ".request-body")).To(ContainSubstring(marker))
		Expect(tab.Text(`.test-delivery[data-kind="telegram"] .request-body`)).To(And(ContainSubstring("-1001234567890"), ContainSubstring(marker)))
		Expect(tab.Text(`.test-delivery[data-kind="google_sheets"] .sheet-row`)).To(ContainSubstring(marker))
		checkPage(tab, "form-test-inbox")

		By("another account gets 404 for the tab and for emptying it, and empties nothing")
		intruder, _ := f.RegisteredVerifiedUser()
		c := newDashboardClient(f, intruder)
		Expect(c.get(base + "/test-inbox").StatusCode).To(Equal(http.StatusNotFound))
		resp := c.post(base+"/test-inbox/clear", url.Values{"csrf_token": {c.csrfOf("/dashboard/forms")}})
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		Expect(readBody(resp)).NotTo(ContainSubstring(marker))
		Expect(f.testInbox(lf.Token, lf.ID, "")).To(HaveLen(1))

		By("emptying the test inbox leaves the empty state, which says how to send a test")
		tab.Do(chromedp.Click(chromedp.CSS(`form[action$="/test-inbox/clear"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".test-inbox-empty")))
		Expect(tab.Text(".banner-ok")).To(ContainSubstring("test inbox is empty"))
		Expect(tab.Text(".test-inbox-empty")).To(And(ContainSubstring("X-Service-Test: true"), ContainSubstring("submissions:test"),
			ContainSubstring("FORMD_TEST_INBOX_RETENTION")))
		Expect(f.testInbox(lf.Token, lf.ID, "")).To(BeEmpty())
		checkPage(tab, "form-test-inbox-empty")

		By("nothing was mailed to the recipient since the form went live")
		Consistently(func() int { return len(f.Mail.To(lf.Recipient)) }).WithTimeout(time.Second).Should(Equal(mailedBefore))
	})

	It("refuses a POST without the session's CSRF token with a 403 page", func() {
		token, _ := f.RegisteredVerifiedUser()
		c := newDashboardClient(f, token)
		create := url.Values{"name": {"Forged"}, "recipientEmail": {UniqueEmail("forged")}}

		r := c.post("/dashboard/forms", create)
		Expect(r.StatusCode).To(Equal(http.StatusForbidden))
		Expect(readBody(r)).To(ContainSubstring("without a valid security token"))

		create.Set("csrf_token", strings.Repeat("0", 32))
		Expect(c.post("/dashboard/forms", create).StatusCode).To(Equal(http.StatusForbidden))

		By("another session's token is no better")
		other, _ := f.RegisteredVerifiedUser()
		create.Set("csrf_token", newDashboardClient(f, other).csrfOf("/dashboard/forms"))
		Expect(c.post("/dashboard/forms", create).StatusCode).To(Equal(http.StatusForbidden))
		Expect(f.Forms(token)).To(BeEmpty(), "no form was created")

		By("signing in without the sign-in page's token is refused too (login CSRF)")
		anon := newDashboardClient(f, "")
		Expect(anon.post("/dashboard/sign-in", url.Values{"email": {"a@example.com"}, "password": {DefaultPassword}}).StatusCode).
			To(Equal(http.StatusForbidden))

		By("with the page's token the same form is created")
		create.Set("csrf_token", c.csrfOf("/dashboard/forms/new"))
		Expect(c.post("/dashboard/forms", create).StatusCode).To(Equal(http.StatusCreated))
		Expect(f.Forms(token)).To(HaveLen(1))
	})

	It("answers another account's form with a 404 page", func() {
		owner, _ := f.RegisteredVerifiedUser()
		form, _ := f.CreateForm(owner, map[string]any{"name": "Private", "recipientEmail": UniqueEmail("private")})
		id := form["id"].(string)

		intruder, _ := f.RegisteredVerifiedUser()
		c := newDashboardClient(f, intruder)
		for _, path := range []string{"/dashboard/forms/" + id, "/dashboard/forms/" + id + "/audit"} {
			r := c.get(path)
			Expect(r.StatusCode).To(Equal(http.StatusNotFound), path)
			Expect(readBody(r)).NotTo(ContainSubstring("Private"))
		}
		r := c.post("/dashboard/forms/"+id+"/recipient-verifications", url.Values{"csrf_token": {c.csrfOf("/dashboard/forms")}})
		Expect(r.StatusCode).To(Equal(http.StatusNotFound))
		Expect(c.get("/dashboard/forms/not-a-uuid").StatusCode).To(Equal(http.StatusNotFound))

		By("its owner sees it")
		Expect(newDashboardClient(f, owner).get("/dashboard/forms/" + id).StatusCode).To(Equal(http.StatusOK))
	})

	It("sends a Content-Security-Policy without inline script or style, and keeps pages out of caches", func() {
		token, _ := f.RegisteredVerifiedUser()
		for _, c := range []*dashboardClient{newDashboardClient(f, ""), newDashboardClient(f, token)} {
			for _, path := range []string{"/dashboard/sign-in", "/dashboard/forms", "/dashboard/account", "/dashboard/nowhere"} {
				r := c.get(path)
				csp := r.Header.Get("Content-Security-Policy")
				Expect(csp).To(ContainSubstring("script-src 'self'"), path)
				Expect(csp).To(ContainSubstring("frame-ancestors 'none'"), path)
				Expect(csp).NotTo(ContainSubstring("unsafe-inline"), path)
				Expect(r.Header.Get("X-Content-Type-Options")).To(Equal("nosniff"), path)
				Expect(r.Header.Get("Referrer-Policy")).To(Equal("same-origin"), path)
				Expect(r.Header.Get("Cache-Control")).To(Equal("no-store"), path)
			}
		}
		By("the session cookie is HttpOnly and SameSite=Lax (not Secure: formd's address is http here)")
		anon := newDashboardClient(f, "")
		csrf := anon.csrfOf("/dashboard/sign-in")
		_, email := f.RegisteredVerifiedUser()
		r := anon.post("/dashboard/sign-in", url.Values{"csrf_token": {csrf}, "email": {email}, "password": {DefaultPassword}})
		Expect(r.StatusCode).To(Equal(http.StatusSeeOther))
		cookie := r.Header.Get("Set-Cookie")
		Expect(cookie).To(HavePrefix("auth.session_token="))
		Expect(cookie).To(ContainSubstring("HttpOnly"))
		Expect(cookie).To(ContainSubstring("SameSite=Lax"))
		Expect(cookie).NotTo(ContainSubstring("Secure"))
	})
})

// waitForPath waits until the tab is at path (its query aside) and the page is loaded.
func waitForPath(tab *Tab, f *Formd, path string) {
	GinkgoHelper()
	Eventually(func() string {
		u, err := url.Parse(tab.Location())
		if err != nil {
			return ""
		}
		return u.Path
	}).WithTimeout(BrowserTimeout).Should(Equal(path))
	tab.Do(chromedp.WaitReady(chromedp.CSS("footer")))
}

// playgroundGates lists the playground's gates as "gate=outcome", in order.
func playgroundGates(tab *Tab) []string {
	GinkgoHelper()
	var gates []string
	tab.Eval(`Array.from(document.querySelectorAll("table.gates tbody tr")).map(r =>
		r.querySelector("th").textContent.trim() + "=" + r.querySelector(".badge").textContent.trim())`, &gates)
	return gates
}

// signIn signs the tab in with the account's email and DefaultPassword,
// signing out first whoever an earlier spec left signed in (the browser's
// tabs share their cookies).
func signIn(tab *Tab, f *Formd, email string) {
	GinkgoHelper()
	signedOut(tab, f)
	tab.Do(chromedp.SetValue(chromedp.CSS("#email"), email), chromedp.SetValue(chromedp.CSS("#password"), DefaultPassword),
		chromedp.Click(chromedp.CSS(`main button[type=submit]`)))
	waitForPath(tab, f, "/dashboard/forms")
}

// signedOut opens the sign-in page with nobody signed in: tabs share the
// browser's cookies, so an earlier spec's session is signed out first.
func signedOut(tab *Tab, f *Formd) {
	GinkgoHelper()
	tab.Do(chromedp.Navigate(f.URL+"/dashboard/sign-in"), chromedp.WaitReady(chromedp.CSS("footer")))
	if u, err := url.Parse(tab.Location()); err == nil && u.Path != "/dashboard/sign-in" {
		signOut(tab, f)
	}
	tab.Do(chromedp.WaitVisible(chromedp.CSS("#email")))
}

// followMailLink opens a verification link and presses its page's button.
func followMailLink(tab *Tab, link string) {
	GinkgoHelper()
	tab.Do(chromedp.Navigate(link), chromedp.Click(chromedp.CSS(`form[method=post] button`)))
	tab.Do(chromedp.WaitNotPresent(chromedp.CSS(`form[method=post] button`)))
}

// signOut presses the header's sign-out button.
func signOut(tab *Tab, f *Formd) {
	GinkgoHelper()
	tab.Do(chromedp.Click(chromedp.CSS(`form[action="/dashboard/sign-out"] button`)))
	waitForPath(tab, f, "/dashboard/sign-in")
}

// axeSource is axe-core's script, installed by scripts/ensure-browser-tools.sh.
var axeSource = func() func() string {
	var src string
	return func() string {
		GinkgoHelper()
		if src == "" {
			b, err := os.ReadFile(filepath.Join("browser", "node_modules", "axe-core", "axe.min.js"))
			if err != nil {
				Fail("axe-core is not installed (features/browser/node_modules is missing): run scripts/ensure-browser-tools.sh " +
					"(or `cd features/browser && npm ci`); `make features` does it")
			}
			src = string(b)
		}
		return src
	}
}()

// artifactDir is where the dashboard's screenshots go (git-ignored).
const artifactDir = "artifacts/dashboard"

// axeViolation is one serious or critical finding of axe-core.
type axeViolation struct {
	ID, Impact, Help string
	Nodes            []string
}

// checkPage runs axe-core on the tab's page at a desktop's and a phone's
// width, and in dark mode, expecting no serious or critical violation (the
// colour contrast of both schemes included), and saves a PNG screenshot of
// each (artifacts/dashboard/<name>-desktop.png, -phone.png, -dark.png).
func checkPage(tab *Tab, name string) {
	GinkgoHelper()
	Expect(os.MkdirAll(artifactDir, 0o755)).To(Succeed())
	for _, size := range []struct {
		label         string
		width, height int64
		scheme        string
	}{{"desktop", 1280, 900, "light"}, {"phone", 390, 844, "light"}, {"dark", 1280, 900, "dark"}} {
		tab.Do(chromedp.EmulateViewport(size.width, size.height), colorScheme(size.scheme))
		var injected bool
		tab.Eval(`typeof window.axe === "object"`, &injected)
		if !injected {
			tab.Eval(axeSource()+"\n;true", nil)
		}
		var violations []axeViolation
		tab.Eval(`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
			.filter(v => v.impact === "serious" || v.impact === "critical")
			.map(v => ({ID: v.id, Impact: v.impact, Help: v.help, Nodes: v.nodes.slice(0, 5).map(n => n.target.join(" "))})))`, &violations)
		Expect(violations).To(BeEmpty(), "axe-core on %s (%s): %s", name, size.label, describeViolations(violations))
		png := run(tab, chromedp.FullScreenshot(100))
		Expect(os.WriteFile(filepath.Join(artifactDir, fmt.Sprintf("%s-%s.png", name, size.label)), png, 0o644)).To(Succeed())
	}
	tab.Do(chromedp.EmulateViewport(1280, 900), colorScheme("light"))
}

// colorScheme makes the page see prefers-color-scheme: scheme.
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

func describeViolations(vs []axeViolation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "\n  %s (%s): %s at %v", v.ID, v.Impact, v.Help, v.Nodes)
	}
	return b.String()
}

// dashboardClient talks to the dashboard as a browser without script does:
// form posts with the session cookie (and the pre-session cookie of the
// sign-in pages), never following redirects.
type dashboardClient struct {
	f       *Formd
	client  *http.Client
	cookies map[string]string
}

func newDashboardClient(f *Formd, sessionToken string) *dashboardClient {
	c := &dashboardClient{f: f, cookies: map[string]string{}, client: &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	if sessionToken != "" {
		c.cookies["auth.session_token"] = sessionToken
	}
	return c
}

func (c *dashboardClient) do(req *http.Request) *http.Response {
	GinkgoHelper()
	for name, value := range c.cookies {
		req.AddCookie(&http.Cookie{Name: name, Value: value})
	}
	r, err := c.client.Do(req)
	Expect(err).NotTo(HaveOccurred())
	for _, ck := range r.Cookies() {
		c.cookies[ck.Name] = ck.Value
	}
	DeferCleanup(r.Body.Close)
	return r
}

func (c *dashboardClient) get(path string) *http.Response {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodGet, c.f.URL+path, nil)
	Expect(err).NotTo(HaveOccurred())
	return c.do(req)
}

func (c *dashboardClient) post(path string, form url.Values) *http.Response {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodPost, c.f.URL+path, strings.NewReader(form.Encode()))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.do(req)
}

var csrfInput = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// csrfOf opens a page and returns the CSRF token of its forms.
func (c *dashboardClient) csrfOf(path string) string {
	GinkgoHelper()
	r := c.get(path)
	Expect(r.StatusCode).To(Equal(http.StatusOK), path)
	m := csrfInput.FindStringSubmatch(readBody(r))
	Expect(m).To(HaveLen(2), "a csrf_token field on %s", path)
	return m[1]
}

func readBody(r *http.Response) string {
	GinkgoHelper()
	b, err := io.ReadAll(r.Body)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}
