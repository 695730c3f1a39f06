package features_test

import (
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The dashboard's Spam tab (ports/web) over the Spam folder, in Chromium
// against the suite's rspamd: every page checked with axe-core and
// photographed.
var _ = Describe("Dashboard spam folder", func() {
	It("switches a form to hold mode, counts what it holds on the tabs, releases one as not spam and shreds another as spam", func() {
		f := StartFormd(append(testRspamdController(), "FORMD_RSPAMD_URL="+testRspamdURL())...)
		db := f.OpenDB()
		lf := f.LiveForm(nil)
		base := "/dashboard/forms/" + lf.ID
		spamTab := `.tabs a[href$="/spam"]`
		rows := func(tab *Tab) []string {
			GinkgoHelper()
			var out []string
			tab.Eval(`Array.from(document.querySelectorAll("table.held tbody tr")).map(r => r.innerText)`, &out)
			return out
		}

		By("a form out of hold mode has a Spam tab that says how to turn hold on")
		tab := NewTab()
		signIn(tab, f, lf.OwnerEmail)
		tab.Do(chromedp.Navigate(f.URL+base), chromedp.WaitVisible(chromedp.CSS(spamTab)))
		Expect(tab.Text(spamTab)).To(Equal("Spam"), "nothing held, no count")
		tab.Do(chromedp.Click(chromedp.CSS(spamTab)))
		waitForPath(tab, f, base+"/spam")
		Expect(tab.Attribute(spamTab, "aria-current")).To(Equal("page"))
		Expect(tab.Text("main .banner-warn")).To(ContainSubstring("not in hold mode"))
		Expect(tab.Text("main .empty")).To(ContainSubstring("empty"))
		checkPage(tab, "form-spam-off")

		By("Settings: hold mode for 14 days, refused above 90 days next to its field")
		tab.Do(chromedp.Click(chromedp.CSS(`main .banner-warn a[href*="/settings"]`)))
		waitForPath(tab, f, base+"/settings")
		save := chromedp.Click(chromedp.CSS(`form[action$="/settings"] button[type=submit]`))
		// The browser's own check of the number's bounds is lifted, so the
		// server's refusal is what is seen.
		tab.Eval(`document.querySelector("#spamHoldDays").removeAttribute("max"); true`, nil)
		tab.Do(chromedp.SetValue(chromedp.CSS("#spamMode"), "hold"), chromedp.SetValue(chromedp.CSS("#spamHoldDays"), "91"), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#spamHoldDays-error")))
		Expect(tab.Text("#spamHoldDays-error")).To(ContainSubstring("between 1 and 90 days"))
		Expect(tab.Attribute("#spamHoldDays", "aria-invalid")).To(Equal("true"))
		tab.Do(chromedp.SetValue(chromedp.CSS("#spamHoldDays"), "14"), save, chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(f.FormByID(lf.Token, lf.ID)["spam"]).To(And(HaveKeyWithValue("mode", "hold"), HaveKeyWithValue("holdDays", 14.0)))
		var days string
		tab.Eval(`document.querySelector("#spamHoldDays").value`, &days)
		Expect(days).To(Equal("14"), "the page shows the saved days")
		checkPage(tab, "form-settings-hold")

		By("the GTUBE message is held: every tab of the form counts it")
		released, _ := holdGTUBE(f, lf)
		tab.Do(chromedp.Navigate(f.URL+base+"/deliveries"), chromedp.WaitVisible(chromedp.CSS(spamTab)))
		Expect(tab.Text(spamTab)).To(Equal("Spam (1)"))

		By("the Spam tab lists it: when, who, subject, score, reasons and the start of the message")
		tab.Do(chromedp.Click(chromedp.CSS(spamTab)))
		waitForPath(tab, f, base+"/spam")
		Expect(tab.Text("main")).NotTo(ContainSubstring("not in hold mode"))
		held := rows(tab)
		Expect(held).To(HaveLen(1))
		Expect(held[0]).To(And(ContainSubstring("ada@example.org"), ContainSubstring("Hello"), ContainSubstring("GTUBE"),
			ContainSubstring("Please read: XJS*C4JDBQADN1")))
		checkPage(tab, "form-spam")

		By("its page shows every field, the verdict and when it would be shredded")
		tab.Do(chromedp.Click(chromedp.CSS(`table.held tbody th a`)))
		waitForPath(tab, f, base+"/spam/"+released)
		var values []string
		tab.Eval(`Array.from(document.querySelectorAll(".submission-fields dd")).map(d => d.textContent)`, &values)
		Expect(values).To(ContainElements("ada@example.org", "Please read: "+gtube))
		Expect(tab.Text("main")).To(And(ContainSubstring("Hello"), ContainSubstring("Shredded unreviewed on"), ContainSubstring("Spam score"),
			ContainSubstring(time.Now().UTC().AddDate(0, 0, 14).Format("2 Jan 2006"))))
		checkPage(tab, "form-spam-submission")

		By("Not spam delivers it and teaches the filter; the count goes")
		tab.Do(chromedp.Click(chromedp.CSS(`form.review button[value="not_spam"]`)))
		waitForPath(tab, f, base+"/spam")
		Expect(tab.Text(".banner-ok")).To(ContainSubstring("Released: its deliveries are queued; the spam filter learned"))
		m := f.Mail.WaitForMail(lf.Recipient)
		Expect(m.Subject).To(Equal("Hello"))
		Expect(m.Text).To(ContainSubstring(gtube))
		Expect(tab.Text(spamTab)).To(Equal("Spam"))
		Expect(rows(tab)).To(BeEmpty())
		checkPage(tab, "form-spam-released")

		By("Spam on another one shreds it and sends nothing")
		shredded, _ := holdGTUBE(f, lf)
		// Opened afresh, not reloaded: a reload keeps the release's banner,
		// which the wait below would take for the shredding's.
		tab.Do(chromedp.Navigate(f.URL+base+"/spam"), chromedp.WaitVisible(chromedp.CSS("table.held")))
		var banners int
		tab.Eval(`document.querySelectorAll(".banner-ok").length`, &banners)
		Expect(banners).To(BeZero(), "no banner left from the release")
		Expect(tab.Text(spamTab)).To(Equal("Spam (1)"))
		Expect(db.PayloadCount(shredded)).To(Equal(1))
		tab.Do(chromedp.Click(chromedp.CSS(`table.held form.review button[value="spam"]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(tab.Text(".banner-ok")).To(ContainSubstring("Shredded as spam; the spam filter learned"))
		Expect(db.PayloadCount(shredded)).To(BeZero())
		Expect(db.Int(`SELECT count(*) FROM deliveries WHERE submission_id = $1`, shredded)).To(BeZero())
		Expect(tab.Text(spamTab)).To(Equal("Spam"))

		By("Delete shreds a third without teaching the filter")
		deleted, _ := holdGTUBE(f, lf)
		tab.Do(chromedp.Navigate(f.URL+base+"/spam/"+deleted), chromedp.WaitVisible(chromedp.CSS("form.review")))
		tab.Do(chromedp.Click(chromedp.CSS(`form.review button[value="deleted"]`)))
		waitForPath(tab, f, base+"/spam")
		Expect(tab.Text(".banner-ok")).To(ContainSubstring("Deleted"))
		Expect(db.PayloadCount(deleted)).To(BeZero())
		Consistently(func() []Mail { return f.Mail.To(lf.Recipient) }).WithTimeout(time.Second).Should(HaveLen(2),
			"the verification mail and the released one only")

		By("a page of the folder that does not exist says so")
		tab.Do(chromedp.Navigate(f.URL+base+"/spam?after=nonsense"), chromedp.WaitVisible(chromedp.CSS("main")))
		Expect(tab.Text("main")).To(ContainSubstring("That page of the Spam folder does not exist"))

		By("every read of the folder is in the access log, and each review in the audit trail")
		Expect(db.Int(`SELECT count(*) FROM submission_accesses WHERE form_id = $1 AND filters->>'folder' = 'spam'
			AND action = 'read'`, lf.ID)).To(Equal(2), "the two held submissions' pages the owner opened")
		tab.Do(chromedp.Navigate(f.URL+base+"/audit"), chromedp.WaitVisible(chromedp.CSS("main")))
		Expect(tab.Text("main")).To(ContainSubstring("Spam folder reviewed"))
	})
})
