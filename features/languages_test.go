package features_test

// A form's language and its own hosted pages (issue 40, items 3 and 4): the
// hosted pages and formd's default autoresponder speak the form's language,
// else the visitor's (Accept-Language); a form may give its success and
// error pages its own heading and text per language (docs/languages.md).

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("A form's language and its own hosted pages", func() {
	const site = "https://example.com/contact"
	var f *Formd

	BeforeEach(func() {
		f = shared
	})

	It("thanks a German visitor in German, on the page and in the default autoresponder", func() {
		sf := verifiedSubmitForm(f, map[string]any{"autoresponder": map[string]any{"enabled": true}})
		german := Header("Accept-Language", "de-DE,de;q=0.9,en;q=0.5")
		visitor := UniqueEmail("besucher")

		r := f.Post("", sf.Path(), urlencodedBody("email", visitor, "message", "Hallo"), fromPage(site), htmlNavigation(), german)
		page := f.Get("", expectRedirect(r), htmlNavigation(), german, Header("Referer", site))
		Expect(page.Status).To(Equal(http.StatusOK))
		Expect(page.Header.Get("Content-Language")).To(Equal("de"))
		Expect(string(page.Body)).To(ContainSubstring("Vielen Dank!"))

		By("the autoresponder reaching the visitor in German")
		m := f.Mail.WaitForMail(visitor)
		Expect(m.Subject).To(Equal("Wir haben Ihre Nachricht erhalten"))
		Expect(m.Text).To(ContainSubstring("Vielen Dank. Wir haben Ihre Nachricht erhalten"))
	})

	It("answers French whatever the browser asks when the form's language is French", func() {
		sf := verifiedSubmitForm(f, map[string]any{"language": "fr", "autoresponder": map[string]any{"enabled": true},
			"validation": map[string]any{"fields": []any{map[string]any{"field": "message", "required": true}}}})
		german := Header("Accept-Language", "de")
		visitor := UniqueEmail("visiteur")

		r := f.Post("", sf.Path(), urlencodedBody("email", visitor, "message", "Bonjour"), fromPage(site), htmlNavigation(), german)
		Expect(htmlPage(f, expectRedirect(r), german)).To(ContainSubstring("Merci !"))
		Expect(f.Mail.WaitForMail(visitor).Subject).To(Equal("Nous avons bien reçu votre message"))

		r = f.Post("", sf.Path(), urlencodedBody("name", "Ada"), fromPage(site), htmlNavigation(), german)
		q := expectErrorPageRedirect(r)
		Expect(q.Get("form")).To(Equal(sf.ID))
		Expect(htmlPage(f, r.Header.Get("Location"), german)).To(ContainSubstring("Le formulaire n"))
	})

	It("shows the form's own heading and text in the visitor's language, and keeps formd's reasons on its error page", func() {
		sf := verifiedSubmitForm(f, map[string]any{
			"validation": map[string]any{"fields": []any{map[string]any{"field": "message", "required": true}}},
			"pages": map[string]any{
				"success": map[string]any{
					"en": map[string]any{"heading": "Thanks, friend", "text": "We read every message."},
					"de": map[string]any{"heading": "Danke, <b>Freund</b>", "text": "Wir lesen jede Nachricht."},
				},
				"error": map[string]any{"de": map[string]any{"heading": "Hoppla", "text": "Bitte prüfen Sie Ihre Eingaben."}},
			}})
		By("the API showing the pages as set")
		got := f.FormByID(sf.Token, sf.ID)
		Expect(got).To(HaveKeyWithValue("language", ""))
		Expect(got["pages"]).To(HaveKeyWithValue("error", HaveKeyWithValue("de", map[string]any{"heading": "Hoppla", "text": "Bitte prüfen Sie Ihre Eingaben."})))

		r := f.Post("", sf.Path(), urlencodedBody("message", "Hallo"), fromPage(site), htmlNavigation())
		loc := expectRedirect(r)
		german := htmlPage(f, loc, Header("Accept-Language", "de-CH"))
		Expect(german).To(ContainSubstring("Danke, &lt;b&gt;Freund&lt;/b&gt;"), "the form's words are plain text")
		Expect(german).To(ContainSubstring("Wir lesen jede Nachricht."))
		Expect(htmlPage(f, loc, Header("Accept-Language", "en-US"))).To(ContainSubstring("Thanks, friend"))
		Expect(htmlPage(f, loc, Header("Accept-Language", "ja"))).To(ContainSubstring("Thanks, friend"), "English when the form has not the visitor's language")

		r = f.Post("", sf.Path(), urlencodedBody("name", "Ada"), fromPage(site), htmlNavigation())
		text := htmlPage(f, r.Header.Get("Location"), Header("Accept-Language", "de"))
		Expect(text).To(ContainSubstring("Hoppla"))
		Expect(text).To(ContainSubstring("Bitte prüfen Sie Ihre Eingaben."))
		Expect(text).To(ContainSubstring("message ist ein Pflichtfeld"), "formd's reasons stay below the form's words")

		By("the audit trail naming the change")
		sf.Patch(map[string]any{"language": "de"})
		var languageChanges [][2]any
		for _, ev := range f.Events(sf.Token, sf.ID) {
			if c, ok := changedFields(ev["changes"].([]any))["language"]; ok {
				languageChanges = append(languageChanges, c)
			}
		}
		Expect(languageChanges).To(Equal([][2]any{{nil, "de"}}))
	})

	It("asks a form's recipient to confirm in the form's language", func() {
		sf := unverifiedSubmitForm(f, map[string]any{"language": "de"})
		m := f.Mail.WaitForMail(sf.Recipient)
		Expect(m.Subject).To(Equal("Bestätigen Sie, dass Sie Formular-Einsendungen erhalten möchten"))
		Expect(m.Text).To(ContainSubstring("Folgen Sie diesem Link"))
		Expect(Link(m)).To(ContainSubstring("/verify/"))
	})

	It("shows the verification pages in the browser's language", func() {
		sf := unverifiedSubmitForm(f, nil)
		link := Link(f.Mail.WaitForMail(sf.Recipient))
		german := Header("Accept-Language", "de-DE")
		page := f.Get("", link, german)
		Expect(page.Status).To(Equal(http.StatusOK), "%s", page)
		Expect(page.Header.Get("Content-Language")).To(Equal("de"))
		Expect(string(page.Body)).To(ContainSubstring("Empfänger bestätigen"))
		Expect(string(page.Body)).To(ContainSubstring("Einsendungen erhalten"), "the button")

		r := f.Post("", link, RawBody{ContentType: "application/x-www-form-urlencoded"}, Header("Accept-Language", "ja"))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(string(r.Body)).To(ContainSubstring("受信者を確認しました"))

		unknown := f.Get("", "/verify/not-a-token", Header("Accept-Language", "fr"))
		Expect(unknown.Status).To(Equal(http.StatusNotFound))
		Expect(string(unknown.Body)).To(ContainSubstring("Lien non reconnu"))
	})

	It("serves the client script with its messages in German, cacheable, and refuses a language it has no catalog of", func() {
		german := f.Get("", "/client/script.js?lang=de")
		Expect(german.Status).To(Equal(http.StatusOK))
		Expect(german.Header.Get("Cache-Control")).To(Equal("public, max-age=3600"))
		body := string(german.Body)
		Expect(body).To(ContainSubstring(`"Wird gesendet…"`))
		Expect(body).To(ContainSubstring(`"Das Formular konnte nicht gesendet werden (HTTP " + response.status + ")."`))
		Expect(body).To(ContainSubstring(`"Anfrage-ID: " + answer.requestId`))
		Expect(body).NotTo(ContainSubstring("Check your connection"))
		english := f.Get("", "/client/script.js")
		Expect(english.Header.Get("ETag")).NotTo(Equal(german.Header.Get("ETag")))
		Expect(string(english.Body)).To(ContainSubstring(`"Sending\u2026"`))
		ExpectError(f.Get("", "/client/script.js?lang=tlh"), http.StatusNotFound, "lang is one of")
	})

	It("refuses a language or a page formd does not speak, naming the field", func() {
		sf := verifiedSubmitForm(f, nil)
		ExpectError(f.Patch(sf.Token, "/v1/forms/"+sf.ID, map[string]any{"language": "klingon"}),
			http.StatusBadRequest, "language", "en, de, fr, es, pt, it, nl, ja")
		ExpectError(f.Patch(sf.Token, "/v1/forms/"+sf.ID, map[string]any{"pages": map[string]any{
			"success": map[string]any{"zh": map[string]any{"heading": "谢谢"}}}}), http.StatusBadRequest, "pages.success")
		ExpectError(f.Patch(sf.Token, "/v1/forms/"+sf.ID, map[string]any{"pages": map[string]any{
			"success": map[string]any{"de": map[string]any{"text": "Ohne Überschrift"}}}}), http.StatusBadRequest, "pages.success.de.heading")
	})
})
