package features_test

import (
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The settings page's mail templates card (ports/web) in Chromium: edited,
// refused next to its input, previewed, saved; checked with axe-core and
// photographed.
var _ = Describe("Dashboard mail templates", func() {
	It("edits a template on the settings page, shows its error, previews both mails and saves it", func() {
		f := StartFormd()
		lf := f.LiveForm(map[string]any{"autoresponder": map[string]any{"enabled": true, "subject": "Thanks", "message": "We got it."}})
		base := "/dashboard/forms/" + lf.ID + "/settings"
		preview := chromedp.Click(chromedp.CSS(`.mail-templates button[value="preview"]`))
		tab := NewTab()
		signIn(tab, f, lf.OwnerEmail)
		tab.Do(chromedp.Navigate(f.URL+base), chromedp.WaitVisible(chromedp.CSS("#mail-templates")))

		By("an unclosed section is refused next to its input, with its line and column")
		tab.Do(chromedp.SetValue(chromedp.CSS("#tplNotificationHtml"), "<p>Hi</p>\n<ul>{{#fields}}<li>{{name}}</li>\n</ul>"), preview)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#tplNotificationHtml-error")))
		Expect(tab.Text("#tplNotificationHtml-error")).To(Equal(`templates.notification.html: line 2, column 5: unclosed section "fields"`))
		Expect(tab.Attribute("#tplNotificationHtml", "aria-invalid")).To(Equal("true"))

		By("the preview renders both mails with sample fields, the HTML escaped in a sandboxed frame")
		tab.Do(chromedp.SetValue(chromedp.CSS("#tplNotificationSubject"), "{{name}} wrote to {{formName}}"),
			chromedp.SetValue(chromedp.CSS("#tplNotificationHtml"),
				`<h2 style="font-family:sans-serif">Message from {{name}}</h2><table>{{#fields}}<tr><th>{{name}}</th><td style="white-space:pre-wrap">{{value}}</td></tr>{{/fields}}</table>`),
			chromedp.SetValue(chromedp.CSS("#tplAutoresponderText"), "Dear {{name}},\nthanks for writing.\n"), preview)
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".mail-preview")))
		Expect(tab.Text(".mail-preview .test-delivery:nth-of-type(1) .mail-subject")).To(Equal("Ada Lovelace wrote to Contact"))
		Expect(tab.Attribute(".mail-preview iframe.mail-html", "sandbox")).To(Equal(""))
		var srcdoc string
		tab.Eval(`document.querySelector(".mail-preview iframe.mail-html").getAttribute("srcdoc")`, &srcdoc)
		Expect(srcdoc).To(ContainSubstring("Could you call me back &lt;tomorrow&gt;?"))
		Expect(tab.Text(".mail-preview .test-delivery:nth-of-type(2) .mail-text")).To(HavePrefix("Dear Ada Lovelace,\nthanks for writing."))
		Expect(f.FormByID(lf.Token, lf.ID)["templates"]).To(HaveKeyWithValue("notification", BeEmpty()), "a preview saves nothing")
		checkPage(tab, "form-settings-templates-preview")
		// A full-page screenshot leaves the sandboxed frame (its own
		// process) unpainted: the frame is photographed in view.
		tab.Do(chromedp.ScrollIntoView(chromedp.CSS(".mail-preview iframe.mail-html")), chromedp.Sleep(500*time.Millisecond))
		shot := run(tab, chromedp.CaptureScreenshot())
		Expect(os.WriteFile(filepath.Join(artifactDir, "form-settings-templates-frame.png"), shot, 0o644)).To(Succeed())

		By("saving keeps the templates, and a submission's notification uses them")
		tab.Do(chromedp.Click(chromedp.CSS(`.mail-templates button[value="save"]`)), chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(f.FormByID(lf.Token, lf.ID)["templates"]).To(HaveKeyWithValue("notification", HaveKeyWithValue("subject", "{{name}} wrote to {{formName}}")))
		var subject string
		tab.Eval(`document.querySelector("#tplNotificationSubject").value`, &subject)
		Expect(subject).To(Equal("{{name}} wrote to {{formName}}"))
		By("a blank HTML template previews formd's default HTML notification")
		tab.Do(chromedp.Navigate(f.URL+base), chromedp.WaitVisible(chromedp.CSS("#tplNotificationHtml")))
		tab.Eval(`document.querySelector("#tplNotificationHtml").value = ""; true`, nil)
		tab.Do(preview, chromedp.WaitVisible(chromedp.CSS(".mail-preview")))
		tab.Eval(`document.querySelector(".mail-preview iframe.mail-html").getAttribute("srcdoc")`, &srcdoc)
		Expect(srcdoc).To(And(ContainSubstring("New submission to Contact"), ContainSubstring("<table"), ContainSubstring("Request id: req_preview")))
		tab.Do(chromedp.ScrollIntoView(chromedp.CSS(".mail-preview iframe.mail-html")), chromedp.Sleep(500*time.Millisecond))
		shot = run(tab, chromedp.CaptureScreenshot())
		Expect(os.WriteFile(filepath.Join(artifactDir, "form-settings-templates-default-frame.png"), shot, 0o644)).To(Succeed())

		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "name": "Grace"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(f.Mail.WaitForMail(lf.Recipient).Subject).To(Equal("Grace wrote to Contact"))
	})
})
