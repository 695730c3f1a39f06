package features_test

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The dashboard's Submissions tab (ports/web) over the submissions archive,
// in Chromium: every page checked with axe-core and photographed.
var _ = Describe("Dashboard submissions", func() {
	It("lists an archived form's submissions, filters them, shows one with its file, erases one and a person's with confirmation, and tells who read them on the audit page", func() {
		f := shared
		db := f.OpenDB()
		lf := archivedLiveForm(f)
		base := "/dashboard/forms/" + lf.ID
		submit := func(email, topic, message string, files ...uploadPart) string {
			GinkgoHelper()
			id, _ := submitArchived(f, db, lf, multipartBody([]string{"email", email, "topic", topic, "message", message}, files...))
			return id
		}
		rows := func(tab *Tab) []string {
			GinkgoHelper()
			var out []string
			tab.Eval(`Array.from(document.querySelectorAll("table.submissions tbody tr")).map(r => r.innerText)`, &out)
			return out
		}
		submitFilter := func(tab *Tab, query string) {
			GinkgoHelper()
			tab.Do(chromedp.Click(chromedp.CSS(`form.filters button[type=submit]`)))
			Eventually(tab.Location).WithTimeout(BrowserTimeout).Should(ContainSubstring(query))
			tab.Do(chromedp.WaitReady(chromedp.CSS("footer")))
		}

		By("three submissions archived and delivered, the first with a file and a message with markup and lines")
		ada, bob := UniqueEmail("dash-ada"), UniqueEmail("dash-bob")
		pdf := "%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"
		first := submit(ada, "sales", "Hello <b>there</b>\nsecond line",
			uploadPart{Field: "cv", Filename: "ada-cv.pdf", ContentType: "application/pdf", Data: []byte(pdf)})
		second := submit(bob, "support", "My order is late")
		third := submit(ada, "support", "Still waiting")

		By("the Submissions tab listing them newest first: time, submitter, first field, delivery status")
		tab := NewTab()
		signIn(tab, f, lf.OwnerEmail)
		tab.Do(chromedp.Navigate(f.URL + base))
		tab.Do(chromedp.Click(chromedp.CSS(`.tabs a[href$="/submissions"]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("table.submissions")))
		Expect(tab.Location()).To(Equal(f.URL + base + "/submissions"))
		Expect(tab.Attribute(`.tabs a[href$="/submissions"]`, "aria-current")).To(Equal("page"))
		all := rows(tab)
		Expect(all).To(HaveLen(3))
		Expect(all[0]).To(And(ContainSubstring(ada), ContainSubstring("support"), ContainSubstring("delivered")))
		Expect(all[1]).To(And(ContainSubstring(bob), ContainSubstring("support")))
		Expect(all[2]).To(And(ContainSubstring(ada), ContainSubstring("sales")))
		Expect(tab.Attribute(`table.submissions tbody tr:first-child th a`, "href")).To(HaveSuffix(base + "/submissions/" + third))
		Expect(tab.Attribute(`a[href*="format=csv"]`, "href")).To(Equal("/v1/forms/" + lf.ID + "/submissions/export?format=csv"))
		Expect(tab.Attribute(`a[href*="format=ndjson"]`, "href")).To(Equal("/v1/forms/" + lf.ID + "/submissions/export?format=ndjson"))
		checkPage(tab, "form-submissions")

		By("filtering by a field's exact value, then by the submitter's address too; the export links carrying the filter")
		tab.Do(chromedp.SetValue(chromedp.CSS("#field"), "topic"), chromedp.SetValue(chromedp.CSS("#value"), "support"))
		submitFilter(tab, "value=support")
		Expect(rows(tab)).To(HaveLen(2))
		tab.Do(chromedp.SetValue(chromedp.CSS("#email"), bob))
		submitFilter(tab, "email="+url.QueryEscape(bob))
		Expect(rows(tab)).To(ConsistOf(ContainSubstring(bob)))
		export, err := url.Parse(tab.Attribute(`a[href*="format=csv"]`, "href"))
		Expect(err).NotTo(HaveOccurred())
		Expect(export.Path).To(Equal("/v1/forms/" + lf.ID + "/submissions/export"))
		Expect(export.Query()).To(Equal(url.Values{"format": {"csv"}, "field": {"topic"}, "value": {"support"}, "email": {bob}}))
		var downloaded struct {
			Status     int
			Type, Body string
		}
		tab.Eval(`fetch(document.querySelector('a[href*="format=csv"]').href).then(async r =>
			({Status: r.status, Type: r.headers.get("Content-Type"), Body: await r.text()}))`, &downloaded)
		Expect(downloaded.Status).To(Equal(http.StatusOK), "the export link works with the dashboard's session: %s", downloaded.Body)
		Expect(downloaded.Type).To(HavePrefix("text/csv"))
		Expect(strings.Count(downloaded.Body, "\n")).To(Equal(2), "the header and bob's one submission: %q", downloaded.Body)
		Expect(downloaded.Body).To(ContainSubstring(bob))
		tab.Do(chromedp.SetValue(chromedp.CSS("#value"), "nothing like it"))
		submitFilter(tab, "value=nothing")
		Expect(tab.Text("main .empty")).To(ContainSubstring("No submission matches"))

		By("a day range: To includes its day, and the export's exclusive bound is the next day")
		today := time.Now().UTC().Format(time.DateOnly)
		tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
		tab.Do(chromedp.Navigate(f.URL + base + "/submissions?from=" + today + "&to=" + today))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("table.submissions")))
		Expect(rows(tab)).To(HaveLen(3))
		Expect(tab.Attribute(`a[href*="format=csv"]`, "href")).To(ContainSubstring("to=" + tomorrow))
		tab.Do(chromedp.Navigate(f.URL + base + "/submissions?from=" + tomorrow))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("main .empty")))

		By("bad input shown next to its field")
		tab.Do(chromedp.Navigate(f.URL + base + "/submissions?from=yesterday"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#from-error")))
		Expect(tab.Text("#from-error")).To(ContainSubstring("From must be a date"))
		Expect(tab.Attribute("#from", "aria-invalid")).To(Equal("true"))
		tab.Do(chromedp.Navigate(f.URL + base + "/submissions?field=topic"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#value-error")))
		Expect(tab.Text("#value-error")).To(ContainSubstring("Value is the value of field"))
		var exports int
		tab.Eval(`document.querySelectorAll('a[href*="/export?"]').length`, &exports)
		Expect(exports).To(BeZero(), "no export of a filter that is refused")
		Expect(tab.Text("main .empty")).To(ContainSubstring("Correct the filter"))
		checkPage(tab, "form-submissions-invalid")

		By("a submission's page: every field as typed, its file, its delivery, request id, version and when it is shredded")
		tab.Do(chromedp.Navigate(f.URL + base + "/submissions?field=topic&value=sales"))
		tab.Do(chromedp.Click(chromedp.CSS(`table.submissions tbody th a`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".submission-fields")))
		Expect(tab.Location()).To(Equal(f.URL + base + "/submissions/" + first))
		var values []string
		tab.Eval(`Array.from(document.querySelectorAll(".submission-fields dd")).map(d => d.textContent)`, &values)
		Expect(values).To(Equal([]string{ada, "sales", "Hello <b>there</b>\nsecond line"}), "escaped, lines kept")
		Expect(tab.Text("main")).To(And(ContainSubstring("Kept until"), ContainSubstring("Request id"), ContainSubstring("Form version")))
		Expect(tab.Text("table.deliveries")).To(And(ContainSubstring("notification"), ContainSubstring("succeeded")))
		Expect(tab.Attribute(".files a", "href")).To(Equal(base + "/submissions/" + first + "/attachments/0"))
		var download struct {
			Status      int
			Body        string
			Disposition string
		}
		tab.Eval(`fetch(document.querySelector(".files a").href).then(async r => ({Status: r.status,
			Body: await r.text(), Disposition: r.headers.get("Content-Disposition")}))`, &download)
		Expect(download.Status).To(Equal(http.StatusOK))
		Expect(download.Body).To(Equal(pdf))
		Expect(download.Disposition).To(And(HavePrefix("attachment"), ContainSubstring("ada-cv.pdf")))
		checkPage(tab, "form-submission")

		By("erasing it: refused without the confirmation, done with it")
		tab.Do(chromedp.Click(chromedp.CSS(`form[action$="/erase"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#delete-confirm-error")))
		Expect(tab.Text("#delete-confirm-error")).To(ContainSubstring("Tick the box"))
		Expect(db.PayloadCount(first)).To(Equal(1))
		tab.Do(chromedp.Click(chromedp.CSS("#delete-confirm")), chromedp.Click(chromedp.CSS(`form[action$="/erase"] button[type=submit]`)))
		waitForPath(tab, f, base+"/submissions")
		Expect(tab.Text(".banner-ok")).To(ContainSubstring("erased"))
		Expect(db.PayloadCount(first)).To(BeZero())
		Expect(rows(tab)).To(HaveLen(2))
		tab.Do(chromedp.Navigate(f.URL + base + "/submissions/" + first))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("main")))
		Expect(tab.Text("main")).To(ContainSubstring("There is nothing here"))

		By("erasing a person's submissions by address: refused without the confirmation, then saying how many went")
		tab.Do(chromedp.Navigate(f.URL + base + "/submissions"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#erase-email")))
		tab.Do(chromedp.SetValue(chromedp.CSS("#erase-email"), strings.ToUpper(ada[:1])+ada[1:]),
			chromedp.Click(chromedp.CSS(`form[action$="/submissions/erase"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#erase-confirm-error")))
		Expect(db.PayloadCount(third)).To(Equal(1))
		Expect(tab.Attribute("#erase-email", "value")).To(HavePrefix(strings.ToUpper(ada[:1])), "what was typed is kept")
		tab.Do(chromedp.Click(chromedp.CSS("#erase-confirm")),
			chromedp.Click(chromedp.CSS(`form[action$="/submissions/erase"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(tab.Text(".banner-ok")).To(Equal("Erased 1 submission."))
		Expect(db.PayloadCount(third)).To(BeZero())
		Expect(db.PayloadCount(second)).To(Equal(1))
		Expect(rows(tab)).To(ConsistOf(ContainSubstring(bob)))
		checkPage(tab, "form-submissions-erased")

		By("an address that is not one, shown next to its field")
		tab.Do(chromedp.SetValue(chromedp.CSS("#erase-email"), "not an address"), chromedp.Click(chromedp.CSS("#erase-confirm")),
			chromedp.Click(chromedp.CSS(`form[action$="/submissions/erase"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#erase-email-error")))
		Expect(tab.Text("#erase-email-error")).To(ContainSubstring("Email must be an email address"))

		By("the audit page telling who read submissions, and what, in words: no address and no hash")
		tab.Do(chromedp.Navigate(f.URL + base + "/audit"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("table.accesses")))
		accesses := tab.Text("table.accesses")
		Expect(accesses).To(And(ContainSubstring("Signed-in user"), ContainSubstring("Listed 3 submissions"),
			ContainSubstring("Read a submission"), ContainSubstring("Downloaded a file of a submission"),
			ContainSubstring("field topic: a value"), ContainSubstring("submitter: an address")))
		Expect(accesses).NotTo(Or(ContainSubstring(ada), ContainSubstring(bob), ContainSubstring("support"), MatchRegexp(`[0-9a-f]{32}`)))
		Expect(tab.Attribute(`table.accesses a[href*="/submissions/"]`, "href")).To(HavePrefix(base + "/submissions/"))
		Expect(tab.Text("main")).To(ContainSubstring("erased 1 submission of a submitter"))
		checkPage(tab, "form-audit-accesses")

		By("a form without the archive: no Submissions tab, and nobody read its submissions")
		plain := f.LiveFormOf(lf.Token, lf.OwnerEmail, map[string]any{"allowedDomains": []string{"example.com"}})
		tab.Do(chromedp.Navigate(f.URL + "/dashboard/forms/" + plain.ID + "/audit"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".tabs")))
		var tabs []string
		tab.Eval(`Array.from(document.querySelectorAll(".tabs a")).map(a => a.textContent)`, &tabs)
		Expect(tabs).NotTo(ContainElement("Submissions"))
		Expect(tabs).To(ContainElement("Deliveries"))
		Expect(tab.Text("main")).To(ContainSubstring("Nobody has read this form's submissions"))

		By("another account's form: its submissions, a submission, its file and the erasures are 404 pages")
		intruder, _ := f.RegisteredVerifiedUser()
		c := newDashboardClient(f, intruder)
		csrf := c.csrfOf("/dashboard/forms")
		Expect(c.get(base + "/submissions").StatusCode).To(Equal(http.StatusNotFound))
		Expect(c.get(base + "/submissions/" + second).StatusCode).To(Equal(http.StatusNotFound))
		Expect(c.get(base + "/submissions/" + second + "/attachments/0").StatusCode).To(Equal(http.StatusNotFound))
		Expect(c.post(base+"/submissions/"+second+"/erase", url.Values{"csrf_token": {csrf}, "confirm": {"yes"}}).StatusCode).
			To(Equal(http.StatusNotFound))
		Expect(c.post(base+"/submissions/erase", url.Values{"csrf_token": {csrf}, "confirm": {"yes"}, "erase-email": {bob}}).StatusCode).
			To(Equal(http.StatusNotFound))
		Expect(db.PayloadCount(second)).To(Equal(1))

		By("the owner's own erasures refused without the session's CSRF token")
		owner := newDashboardClient(f, lf.Token)
		Expect(owner.post(base+"/submissions/"+second+"/erase", url.Values{"confirm": {"yes"}}).StatusCode).To(Equal(http.StatusForbidden))
		Expect(owner.post(base+"/submissions/erase", url.Values{"confirm": {"yes"}, "erase-email": {bob}}).StatusCode).
			To(Equal(http.StatusForbidden))
		Expect(db.PayloadCount(second)).To(Equal(1))
	})

	It("refuses to erase a submission whose deliveries are in progress, saying so, and counts such ones when erasing by address", func() {
		receiver := startWebhookReceiver()
		f := StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		db := f.OpenDB()
		lf := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"},
			"archive": map[string]any{"enabled": true, "retentionDays": 30}})
		f.Grant(lf.OwnerEmail, "per_submit_webhook")
		base := "/dashboard/forms/" + lf.ID
		ada := UniqueEmail("dash-pending")

		By("a submission whose webhook answers 503: archived, its delivery retrying")
		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "email": ada, "message": "Hello",
			"webhook": receiver.URL("/unavailable")}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		id := db.AcceptedByRequest(r.RequestID()).StreamID
		Eventually(func() []webhookCall { return receiver.Calls("/unavailable") }).WithTimeout(15 * time.Second).ShouldNot(BeEmpty())

		By("the tab showing it pending")
		tab := NewTab()
		signIn(tab, f, lf.OwnerEmail)
		tab.Do(chromedp.Navigate(f.URL + base + "/submissions"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("table.submissions")))
		Expect(tab.Text("table.submissions tbody")).To(ContainSubstring("pending"))

		By("erasing it refused with a banner that says why, nothing erased")
		tab.Do(chromedp.Click(chromedp.CSS(`table.submissions tbody th a`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#delete-confirm")))
		tab.Do(chromedp.Click(chromedp.CSS("#delete-confirm")), chromedp.Click(chromedp.CSS(`form[action$="/erase"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-error")))
		Expect(tab.Text(".banner-error")).To(ContainSubstring("still has deliveries in progress"))
		Expect(tab.Text("table.deliveries")).To(ContainSubstring("webhook"))
		Expect(db.PayloadCount(id)).To(Equal(1))
		checkPage(tab, "form-submission-pending")

		By("erasing the address: none erased, one still being delivered")
		tab.Do(chromedp.Navigate(f.URL + base + "/submissions"))
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#erase-email")))
		tab.Do(chromedp.SetValue(chromedp.CSS("#erase-email"), ada), chromedp.Click(chromedp.CSS("#erase-confirm")),
			chromedp.Click(chromedp.CSS(`form[action$="/submissions/erase"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(tab.Text(".banner-ok")).To(HavePrefix("Erased 0 submissions (1 still being delivered"))
		Expect(db.PayloadCount(id)).To(Equal(1))
	})
})
