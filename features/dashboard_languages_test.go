package features_test

import (
	"net/http"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The Settings tab edits a form's language and its own hosted pages' words
// (docs/languages.md), in headless Chromium.
var _ = Describe("Dashboard: a form's language and hosted pages", func() {
	It("sets German and a German success heading, which the hosted page then shows", func() {
		f := shared
		sf := verifiedSubmitForm(f, nil)
		tab := NewTab()
		signIn(tab, f, sf.Owner)
		tab.Do(chromedp.Navigate(f.URL+"/dashboard/forms/"+sf.ID+"/settings"), chromedp.WaitVisible(chromedp.CSS("#language")))
		Expect(tab.Attribute("#language", "aria-describedby")).To(ContainSubstring("language-hint"))
		save := chromedp.Click(chromedp.CSS(`form[action$="/settings"] button[type=submit]`))

		By("a text without a heading: the domain's error, next to the row's heading")
		tab.Do(chromedp.SetValue(chromedp.CSS("#pages-error-de-text"), "Nur Text"), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS(`#pages-error-de-heading[aria-invalid="true"]`)))
		Expect(tab.Text("main")).To(ContainSubstring("Pages.error.de.heading is required"))
		Expect(f.FormByID(sf.Token, sf.ID)).To(HaveKeyWithValue("language", ""), "nothing was saved")

		By("saving German and a German success heading and text")
		tab.Eval(`document.querySelector("#pages-error-de-text").value = ""; true`, nil)
		tab.Do(chromedp.SetValue(chromedp.CSS("#language"), "de"),
			chromedp.SetValue(chromedp.CSS("#pages-success-de-heading"), "Vielen Dank für Ihre Nachricht"),
			chromedp.SetValue(chromedp.CSS("#pages-success-de-text"), "Wir melden uns innerhalb eines Tages."), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		got := f.FormByID(sf.Token, sf.ID)
		Expect(got).To(HaveKeyWithValue("language", "de"))
		Expect(got["pages"]).To(HaveKeyWithValue("success", map[string]any{
			"de": map[string]any{"heading": "Vielen Dank für Ihre Nachricht", "text": "Wir melden uns innerhalb eines Tages."}}))
		Expect(got["pages"]).To(HaveKeyWithValue("error", BeEmpty()), "empty rows are no words")
		Expect(tab.Attribute("#pages-success-de-heading", "value")).To(Equal("Vielen Dank für Ihre Nachricht"))
		checkPage(tab, "form-settings-languages")

		By("a plain post's success page in German, whatever the browser asks")
		r := f.Post("", sf.Path(), urlencodedBody("message", "Hallo"), fromPage("https://example.com/contact"), htmlNavigation(),
			Header("Accept-Language", "en-US"))
		page := f.Get("", expectRedirect(r), htmlNavigation(), Header("Accept-Language", "en-US"))
		Expect(page.Status).To(Equal(http.StatusOK))
		Expect(string(page.Body)).To(ContainSubstring("Vielen Dank für Ihre Nachricht"))
		Expect(page.Header.Get("Content-Language")).To(Equal("de"))
	})
})
