package features_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Verification mails (docs/languages.md): a recipient's in its form's
// language, else in the language of the request that caused it; an
// account's and a password reset's in the language of the request.
var _ = Describe("Verification mails in the visitor's language", func() {
	var f *Formd
	BeforeEach(func() { f = shared })

	It("mails an account registered with Accept-Language: de its link in German", func() {
		email := UniqueEmail("deutsch")
		r := f.Post("", "/agent/auth", map[string]any{"email": email, "type": "user_claimed"}, Header("Accept-Language", "de-DE,de;q=0.9,en;q=0.5"))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		m := f.Mail.WaitForMail(email)
		Expect(m.Subject).To(Equal("Bestätigen Sie die E-Mail-Adresse Ihres formd-Kontos"))
		Expect(m.Text).To(ContainSubstring("Willkommen bei formd."))
		Expect(m.Text).To(ContainSubstring(Link(m)))
		Expect(f.FollowLink(Link(m)).Status).To(Equal(http.StatusOK), "the German mail's link verifies the account")
	})

	It("mails a password reset asked with Accept-Language: fr in French", func() {
		_, email := f.RegisteredVerifiedUser()
		r := f.Post("", "/agent/auth/password-reset", map[string]any{"email": email}, Header("Accept-Language", "fr-CA,fr;q=0.8"))
		Expect(r.Status).To(Equal(http.StatusAccepted), "%s", r)
		m := f.Mail.WaitForMail(email)
		Expect(m.Subject).To(Equal("Réinitialisez votre mot de passe formd"))
		Expect(m.Text).To(ContainSubstring("Ouvrez ce lien pour choisir un nouveau mot de passe."))
	})

	It("mails a German form's routing recipient in German, whatever language its owner asked in", func() {
		token, _ := f.RegisteredVerifiedUser()
		route := UniqueEmail("vertrieb")
		r := f.Post(token, "/v1/forms", contactForm(map[string]any{"language": "de", "routes": []any{
			map[string]any{"recipientEmail": route, "field": "department", "operator": "equals", "value": "Sales"},
		}}), Header("Accept-Language", "fr"))
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
		m := f.Mail.WaitForMail(route)
		Expect(m.Subject).To(Equal("Bestätigen Sie, dass Sie Formular-Einsendungen erhalten möchten"))
		Expect(m.Text).To(ContainSubstring("Die Weiterleitungsregeln eines formd-Formulars schicken einige seiner Einsendungen an " + route))
	})

	It("mails the recipient of a form without a language in the language of the request that named it", func() {
		token, _ := f.RegisteredVerifiedUser()
		recipient := UniqueEmail("destinataire")
		r := f.Post(token, "/v1/forms", contactForm(map[string]any{"recipientEmail": recipient}), Header("Accept-Language", "fr"))
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
		m := f.Mail.WaitForMail(recipient)
		Expect(m.Subject).To(Equal("Confirmez que vous souhaitez recevoir les envois d'un formulaire"))
		Expect(m.Text).To(ContainSubstring("Un formulaire formd désigne " + recipient))
	})
})

// A link's page says why it refuses in the browser's language, as it says
// everything else.
var _ = Describe("A link page's refusals in the visitor's language", func() {
	var f *Formd
	BeforeEach(func() { f = shared })

	It("refuses a too short password and a used reset link in German", func() {
		_, email := f.RegisteredVerifiedUser()
		german := Header("Accept-Language", "de")
		Expect(f.Post("", "/agent/auth/password-reset", map[string]any{"email": email}, german).Status).To(Equal(http.StatusAccepted))
		link := Link(f.Mail.WaitForMail(email))
		post := func(password string) *Response {
			GinkgoHelper()
			return f.Post("", link, RawBody{ContentType: "application/x-www-form-urlencoded", Data: []byte("password=" + password)}, german)
		}

		page := f.Get("", link, german)
		Expect(string(page.Body)).To(ContainSubstring("Neues Passwort (mindestens 12 Zeichen)"))
		short := post("kurz")
		Expect(short.Status).To(Equal(http.StatusBadRequest), "%s", short)
		Expect(string(short.Body)).To(ContainSubstring("Das Passwort muss mindestens 12 Zeichen lang sein."))
		Expect(post("ein-langes-neues-passwort").Status).To(Equal(http.StatusOK))
		used := f.Get("", link, german)
		Expect(string(used.Body)).To(ContainSubstring("Dieser Bestätigungslink wurde bereits verwendet."))
		Expect(string(f.Get("", link).Body)).To(ContainSubstring("This verification link was already used."))
	})
})
