package features_test

// Hosted pages in the visitor's language (issue 40, item 3): the success and
// error pages of plain HTML posts follow Accept-Language among formd's
// catalogs (docs/languages.md), English otherwise.

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Hosted pages in the visitor's language", func() {
	const site = "https://example.com/contact"
	var f *Formd

	BeforeEach(func() {
		f = shared
	})

	It("thanks a German visitor in German, and explains a refusal in German, field by field", func() {
		sf := verifiedSubmitForm(f, map[string]any{"validation": map[string]any{"fields": []any{
			map[string]any{"field": "message", "required": true}}}})
		german := Header("Accept-Language", "de-DE,de;q=0.9,en;q=0.5")

		r := f.Post("", sf.Path(), urlencodedBody("message", "Hallo"), fromPage(site), htmlNavigation(), german)
		page := f.Get("", expectRedirect(r), htmlNavigation(), german, Header("Referer", site))
		Expect(page.Status).To(Equal(200))
		Expect(page.Header.Get("Content-Language")).To(Equal("de"))
		Expect(string(page.Body)).To(ContainSubstring(`<html lang="de">`))
		Expect(string(page.Body)).To(ContainSubstring("Vielen Dank!"))
		Expect(string(page.Body)).To(ContainSubstring("Zurück zum Formular"))

		r = f.Post("", sf.Path(), urlencodedBody("name", "Ada"), fromPage(site), htmlNavigation(), german)
		q := expectErrorPageRedirect(r)
		Expect(q.Get("code")).To(Equal("fields"))
		text := htmlPage(f, r.Header.Get("Location"), german, Header("Referer", site))
		Expect(text).To(ContainSubstring("Das Formular wurde nicht gesendet"))
		Expect(text).To(ContainSubstring("Die Prüfung der Eingaben ist fehlgeschlagen."))
		Expect(text).To(ContainSubstring("message ist ein Pflichtfeld"))
		Expect(text).To(ContainSubstring("Anfrage-ID: " + r.RequestID()))
	})

	DescribeTable("answers each catalog's language, and English for a language formd has no catalog of",
		func(accept, title string) {
			Expect(htmlPage(f, "/submit/success", Header("Accept-Language", accept))).To(ContainSubstring(title))
		},
		Entry("English", "en-GB", "Thank you!"),
		Entry("German", "de-AT", "Vielen Dank!"),
		Entry("French", "fr-CA", "Merci !"),
		Entry("Spanish", "es-MX", "¡Gracias!"),
		Entry("Portuguese", "pt-BR", "Obrigado!"),
		Entry("Italian", "it", "Grazie!"),
		Entry("Dutch", "nl-BE", "Bedankt!"),
		Entry("Japanese", "ja-JP", "ありがとうございました"),
		Entry("no catalog (Chinese)", "zh-CN,zh;q=0.9", "Thank you!"),
		Entry("no header", "", "Thank you!"),
	)
})
