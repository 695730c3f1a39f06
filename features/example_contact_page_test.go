package features_test

import (
	"net/http"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A worked example (README "Testing your own forms"): a website team's own
// acceptance suite, written as that team would write it. Their contact page
// posts to formd; the form is in test mode, so the suite runs against the
// real form, the real gates and the real templates, and asserts on what the
// sales team would receive, without any mail server.
var _ = Describe("Example: our website's contact page", func() {
	var (
		formd   *Formd
		contact LiveForm
		// inboxToken reads the test inbox: a workspace API token with the
		// submissions:test scope, as a CI secret would hold it.
		inboxToken string
		website    *Site
	)

	BeforeEach(func() {
		formd = shared
		By("Given our contact form, in test mode, which answers visitors from our website")
		contact = formd.LiveForm(map[string]any{"name": "Contact", "allowedDomains": []string{"localhost"},
			"subjectDefault": "New enquiry from the website", "replyToMode": "submitter", "testMode": true,
			"validation":    rule(map[string]any{"field": "email", "required": true, "type": "email"}),
			"autoresponder": map[string]any{"enabled": true, "subject": "We got your message", "message": "We answer within one working day."}})
		inboxToken = formd.TokenWith(contact.Token, contact.Form["workspaceId"].(string), "submissions:test").Secret

		By("and our contact page, with the form formd's dashboard gave us")
		website = StartSite(map[string]string{"/contact": `<!doctype html><html lang=en><head><meta charset=utf-8><title>Contact us</title>
			<script src="` + formd.URL + `/client/script.js" defer></script></head><body>
			<form data-formd action="` + formd.URL + `/submit" method="POST">
			  <input type="hidden" name="access_key" value="` + contact.AccessKey + `">
			  <label for="name">Name</label> <input id="name" name="name" required>
			  <label for="email">Email</label> <input id="email" name="email" type="email" required>
			  <label for="message">Message</label> <textarea id="message" name="message" required></textarea>
			  <button type="submit">Send</button>
			  <div data-formd-status></div>
			</form></body></html>`})
		DeferCleanup(func() {
			formd.Do(http.MethodDelete, "/v1/forms/"+contact.ID+"/test-inbox", nil, Bearer(inboxToken))
		})
	})

	// sentFor is what formd would have sent for the visitor's submission.
	sentFor := func(requestID string) map[string]any {
		GinkgoHelper()
		r := formd.Get(inboxToken, "/v1/forms/"+contact.ID+"/test-inbox?requestId="+requestID)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Array("submissions")).To(HaveLen(1))
		return r.Array("submissions")[0].(map[string]any)
	}

	It("sends the sales team an email with the visitor's message, to which they can simply reply", func() {
		By("When a visitor fills in the contact page and presses Send")
		visitor := NewTab()
		visitor.Do(chromedp.Navigate(website.URL+"/contact"),
			chromedp.SendKeys(chromedp.CSS("#name"), "Grace Hopper"),
			chromedp.SendKeys(chromedp.CSS("#email"), "grace@example.test"),
			chromedp.SendKeys(chromedp.CSS("#message"), "Do you ship to Norway?"),
			chromedp.Click(chromedp.CSS("button")),
			chromedp.WaitVisible(chromedp.CSS(`[data-formd-status][data-state="success"]`)))

		By("Then the visitor sees that the message was sent")
		Expect(visitor.Text("[data-formd-status]")).To(Equal("Email sent successfully!"))

		By("and the sales team would get an email with our subject, the message, and the visitor as reply-to")
		// The test inbox holds it as soon as the answer came: nothing is queued.
		latest := formd.Get(inboxToken, "/v1/forms/"+contact.ID+"/test-inbox?limit=1")
		Expect(latest.Status).To(Equal(http.StatusOK), "%s", latest)
		Expect(latest.Array("submissions")).To(HaveLen(1))
		requestID := latest.Array("submissions")[0].(map[string]any)["requestId"].(string)
		sent := sentFor(requestID)
		email := rendering(sent, "notification")["email"].(map[string]any)
		Expect(email["to"]).To(Equal(contact.Recipient))
		Expect(email["subject"]).To(Equal("New enquiry from the website"))
		Expect(email["replyTo"]).To(Equal("grace@example.test"))
		Expect(email["text"]).To(ContainSubstring("message: Do you ship to Norway?"))

		By("and the visitor would get our confirmation")
		confirmation := rendering(sent, "autoresponder")["email"].(map[string]any)
		Expect(confirmation["to"]).To(Equal("grace@example.test"))
		Expect(confirmation["subject"]).To(Equal("We got your message"))
	})

	It("tells a visitor whose email address is wrong what to fix, and sends nothing", func() {
		By("When the page posts the form with a mistyped email address")
		r := formd.Post("", "/submit", map[string]any{"access_key": contact.AccessKey, "name": "Ada", "email": "ada@", "message": "Hello"},
			Header("Origin", website.URL), Header("Accept", "application/json"))

		By("Then the visitor is told which field to fix")
		Expect(r.Status).To(Equal(http.StatusBadRequest), "%s", r)
		Expect(r.JSON["errors"]).To(ContainElement(HaveKeyWithValue("field", "email")))

		By("and nothing would have been sent")
		list := formd.Get(inboxToken, "/v1/forms/"+contact.ID+"/test-inbox?requestId="+r.RequestID())
		Expect(list.Status).To(Equal(http.StatusOK), "%s", list)
		Expect(list.Array("submissions")).To(BeEmpty())
	})
})
