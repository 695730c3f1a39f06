package features_test

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	netmail "net/mail"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// mimeParts lists the media types of a received mail's top-level parts
// (nil for a single-part mail), and the top-level media type.
func mimeParts(m Mail) (string, []string) {
	GinkgoHelper()
	msg, err := netmail.ReadMessage(bytes.NewReader(m.Raw))
	Expect(err).NotTo(HaveOccurred())
	media, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	Expect(err).NotTo(HaveOccurred())
	if !strings.HasPrefix(media, "multipart/") {
		return media, nil
	}
	r := multipart.NewReader(msg.Body, params["boundary"])
	var types []string
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return media, types
		}
		Expect(err).NotTo(HaveOccurred())
		t, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		types = append(types, t)
	}
}

var _ = Describe("Mail templates", func() {
	var f *Formd
	BeforeEach(func() { f = StartFormd() })

	It("renders the form's notification and autoresponder templates with the submitted fields", func() {
		lf := f.LiveForm(map[string]any{
			"autoresponder": map[string]any{"enabled": true, "subject": "Thanks", "message": "We got it."},
			"templates": map[string]any{
				"notification": map[string]any{
					"subject": "{{name}} wrote to {{formName}}",
					"text":    "From {{name}}{{#company}} at {{company}}{{/company}}{{^company}} (no company){{/company}}\n{{#fields}}- {{name}}: {{value}}\n{{/fields}}Request {{requestId}}\n",
					"html":    "<h1>{{name}}</h1><ul>{{#fields}}<li>{{name}}: {{value}}</li>{{/fields}}</ul>{{^company}}<p>no company</p>{{/company}}",
				},
				"autoresponder": map[string]any{
					"subject": "Thanks, {{name}}",
					"text":    "Dear {{name}},\nwe got your message:\n{{message}}\n",
					"html":    "<p>Dear {{name}}, we got: {{message}}</p>",
				},
			},
		})
		visitor := UniqueEmail("visitor")
		r := f.Post("", "/submit", orderedJSON("access_key", lf.AccessKey, "name", "Ada", "email", visitor, "message", "<script>alert(1)</script>"), fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)

		By("the notification: placeholders, the loop in submitted order, the presence conditional")
		n := f.Mail.WaitForMail(lf.Recipient)
		n.Text = strings.ReplaceAll(n.Text, "\r\n", "\n")
		Expect(n.Subject).To(Equal("Ada wrote to " + lf.Form["name"].(string)))
		Expect(n.Text).To(HavePrefix("From Ada (no company)\n- name: Ada\n- email: " + visitor + "\n- message: <script>alert(1)</script>\nRequest " + r.RequestID()))
		Expect(n.HTML).To(ContainSubstring("<li>message: &lt;script&gt;alert(1)&lt;/script&gt;</li>"), "values are escaped in HTML")
		Expect(n.HTML).NotTo(ContainSubstring("<script>"))
		Expect(n.HTML).To(ContainSubstring("<p>no company</p>"))
		media, parts := mimeParts(n)
		Expect(media).To(Equal("multipart/alternative"))
		Expect(parts).To(Equal([]string{"text/plain", "text/html"}))

		By("the autoresponder: its templates win over its subject and message")
		a := f.Mail.WaitForMail(visitor)
		a.Text = strings.ReplaceAll(a.Text, "\r\n", "\n")
		Expect(a.Subject).To(Equal("Thanks, Ada"))
		Expect(a.Text).To(HavePrefix("Dear Ada,\nwe got your message:\n<script>alert(1)</script>\n"))
		Expect(a.HTML).To(Equal("<p>Dear Ada, we got: &lt;script&gt;alert(1)&lt;/script&gt;</p>"))
	})

	It("sends a default HTML notification beside today's text", func() {
		lf := f.LiveForm(nil)
		r := f.Post("", "/submit", orderedJSON("access_key", lf.AccessKey, "name", "Ada & Co", "message", "line one\nline two"), fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		n := f.Mail.WaitForMail(lf.Recipient)
		Expect(n.Text).To(ContainSubstring("name: Ada & Co"), "the text part as before")
		media, parts := mimeParts(n)
		Expect(media).To(Equal("multipart/alternative"))
		Expect(parts).To(Equal([]string{"text/plain", "text/html"}))
		Expect(n.HTML).To(ContainSubstring("New submission to " + lf.Form["name"].(string)))
		Expect(n.HTML).To(ContainSubstring("<table"))
		Expect(n.HTML).To(MatchRegexp(`<th[^>]*>name</th><td[^>]*>Ada &amp; Co</td>`))
		Expect(strings.ReplaceAll(n.HTML, "\r\n", "\n")).To(MatchRegexp(`<td[^>]*white-space:pre-wrap;[^>]*>line one\nline two</td>`), "line breaks kept")
		Expect(n.HTML).To(ContainSubstring("Request id: " + r.RequestID()))
		Expect(n.HTML).NotTo(MatchRegexp(`(?i)<(script|img|link)|https?://`), "no external resources")
	})

	It("refuses a template with an error at save, naming its line and column", func() {
		token, _ := f.RegisteredVerifiedUser()
		body := contactForm(map[string]any{"templates": map[string]any{"notification": map[string]any{
			"html": "<p>New message</p>\n<table>\n  <tbody>    {{#fields}}<tr><td>{{name}}</td></tr>\n</table>"}}})
		r := f.Post(token, "/v1/forms", body)
		ExpectError(r, http.StatusBadRequest)
		Expect(r.JSON).To(HaveKeyWithValue("message", `templates.notification.html: line 3, column 14: unclosed section "fields"`))
		Expect(f.Forms(token)).To(BeEmpty())

		created, _ := f.CreateForm(token, contactForm(nil))
		path := "/v1/forms/" + created["id"].(string)
		r = f.Patch(token, path, map[string]any{"templates": map[string]any{"autoresponder": map[string]any{"html": "Hi\n {{{name}}}"}}})
		ExpectError(r, http.StatusBadRequest)
		Expect(r.JSON).To(HaveKeyWithValue("message", "templates.autoresponder.html: line 2, column 2: unescaped output is not allowed in an HTML body; write {{name}}"))

		r = f.Patch(token, path, map[string]any{"templates": map[string]any{"notification": map[string]any{"text": "{{> footer}}"}}})
		ExpectError(r, http.StatusBadRequest, "templates.notification.text: line 1, column 1: partials are not available")

		By("a valid template is saved, shown, and in the audit trail")
		r = f.Patch(token, path, map[string]any{"templates": map[string]any{"notification": map[string]any{"subject": "From {{name}}"}}})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		forms := f.Forms(token)
		Expect(forms).To(HaveLen(1))
		Expect(forms[0]).To(HaveKeyWithValue("templates", HaveKeyWithValue("notification", HaveKeyWithValue("subject", "From {{name}}"))))
		events := f.Get(token, path+"/events")
		Expect(events.Status).To(Equal(http.StatusOK), "%s", events)
		Expect(string(events.Body)).To(ContainSubstring(`"field":"templates"`))
	})

	It("shows the rendered HTML in the test inbox", func() {
		lf := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"}, "testMode": true,
			"templates": map[string]any{"notification": map[string]any{"html": "<p>Hello from {{name}}</p>"}}})
		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "name": "<b>Ada</b>"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		inbox := f.testInbox(lf.Token, lf.ID, "")
		Expect(inbox).To(HaveLen(1))
		mail := rendering(inbox[0], "notification")["email"].(map[string]any)
		Expect(mail).To(HaveKeyWithValue("html", "<p>Hello from &lt;b&gt;Ada&lt;/b&gt;</p>"))
	})
})
