package features_test

import (
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A website on another origin (http://localhost:<port>) embeds a form that
// posts to formd (http://127.0.0.1:<port>), in a real Chromium.
var _ = Describe("Browser clients on another origin", func() {
	var (
		f *Formd
		// formdURL is how the browser reaches formd: through a proxy that
		// checks every exchange against /openapi.json.
		formdURL string
		form     LiveForm
		site     *Site
		tab      *Tab
		// notifications counts the mails the recipient got after the form went live.
		notifications func() int
	)

	// page is a website's page: body is the HTML inside <body>, with {{formd}}
	// and {{key}} standing for formd's address and the form's access key.
	page := func(body string) string {
		body = strings.NewReplacer("{{formd}}", formdURL, "{{key}}", html.EscapeString(form.AccessKey)).Replace(body)
		return "<!doctype html><html lang=en><head><meta charset=utf-8><title>Contact us</title></head><body>" + body + "</body></html>"
	}

	BeforeEach(func() {
		f = shared
		formdURL = ContractProxy(f)
		// The website is allowed: the origin gate passes for localhost only.
		form = f.LiveForm(map[string]any{
			"allowedDomains": []string{"localhost"},
			"validation":     rule(map[string]any{"field": "email", "required": true, "type": "email"}),
		})
		verificationMails := len(f.Mail.To(form.Recipient))
		notifications = func() int { return len(f.Mail.To(form.Recipient)) - verificationMails }
		tab = NewTab()
	})

	It("follows a plain HTML post's 303 to the hosted success page and sends the notification", func() {
		site = StartSite(map[string]string{"/contact.html": page(`
			<form action="{{formd}}/submit" method="POST">
			  <input type="hidden" name="access_key" value="{{key}}">
			  <input name="email" value="visitor@example.test">
			  <textarea name="message">Hello from a plain form</textarea>
			  <button type="submit">Send</button>
			</form>`)})
		tab.Do(chromedp.Navigate(site.URL+"/contact.html"), chromedp.Click(chromedp.CSS("button")))
		Eventually(tab.Location).WithTimeout(BrowserTimeout).Should(HavePrefix(formdURL + "/submit/success?form="))
		Expect(tab.Text("body")).To(ContainSubstring("Thank you!"))
		By("the notification reaches the recipient")
		m := f.Mail.WaitForMail(form.Recipient)
		Expect(m.Text).To(ContainSubstring("Hello from a plain form"))
	})

	It("shows a filled honeypot's reason as text on the hosted error page", func() {
		site = StartSite(map[string]string{"/contact.html": page(`
			<form action="{{formd}}/submit" method="POST">
			  <input type="hidden" name="access_key" value="{{key}}">
			  <input name="email" value="bot@example.test">
			  <input type="checkbox" name="botcheck" checked>
			  <button type="submit">Send</button>
			</form>`)})
		tab.Do(chromedp.Navigate(site.URL+"/contact.html"), chromedp.Click(chromedp.CSS("button")))
		Eventually(tab.Location).WithTimeout(BrowserTimeout).Should(HavePrefix(formdURL + "/submit/error?"))
		Expect(tab.Text("body")).To(ContainSubstring("Submission rejected as spam: the botcheck field must be left empty."))
		By("the way back leads to the website (its origin: browsers send no cross-site path in Referer)")
		Expect(tab.Attribute("a[href^='http://localhost']", "href")).To(HavePrefix(site.URL + "/"))
		Consistently(notifications).WithTimeout(300 * time.Millisecond).Should(BeZero())
	})

	Describe("fetch from the website's script", func() {
		BeforeEach(func() {
			site = StartSite(map[string]string{"/app.html": page(`<p>An app that posts with fetch.</p>`)})
			tab.Do(chromedp.Navigate(site.URL + "/app.html"))
		})

		It("reads success: true for a JSON body (after a CORS preflight)", func() {
			var answer map[string]any
			tab.Eval(fmt.Sprintf(`fetch(%q, {method: "POST",
				headers: {"Content-Type": "application/json", "Accept": "application/json", "Idempotency-Key": "browser-json-1"},
				body: JSON.stringify({access_key: %q, email: "json@example.test", message: "Hello as JSON"})
			}).then(r => r.json().then(body => ({status: r.status, body, requestId: r.headers.get("X-Request-Id")})))`,
				formdURL+"/submit", form.AccessKey), &answer)
			Expect(answer["status"]).To(BeNumerically("==", 200), "%v", answer)
			Expect(answer["body"]).To(HaveKeyWithValue("success", true))
			Expect(answer["requestId"]).NotTo(BeEmpty(), "X-Request-Id is exposed to the page")
			Expect(f.Mail.WaitForMail(form.Recipient).Text).To(ContainSubstring("Hello as JSON"))
		})

		It("reads success: true for a FormData body (JSON through Fetch Metadata)", func() {
			var answer map[string]any
			tab.Eval(fmt.Sprintf(`(() => {
				const data = new FormData();
				data.append("email", "formdata@example.test");
				data.append("message", "Hello as FormData");
				return fetch(%q, {method: "POST", body: data}).then(r => r.json().then(body => ({status: r.status, body})));
			})()`, formdURL+"/submit/"+form.AccessKey), &answer)
			Expect(answer["status"]).To(BeNumerically("==", 200), "%v", answer)
			Expect(answer["body"]).To(HaveKeyWithValue("success", true))
			Expect(f.Mail.WaitForMail(form.Recipient).Text).To(ContainSubstring("Hello as FormData"))
		})

		It("reads a refused origin's reason as a JSON 400, not a network error", func() {
			other := f.LiveForm(map[string]any{"allowedDomains": []string{"www.example.com"}})
			var answer map[string]any
			tab.Eval(fmt.Sprintf(`fetch(%q, {method: "POST", headers: {"Content-Type": "application/json"},
				body: JSON.stringify({access_key: %q, message: "from the wrong site"})
			}).then(r => r.json().then(body => ({status: r.status, body})))`, formdURL+"/submit", other.AccessKey), &answer)
			Expect(answer["status"]).To(BeNumerically("==", 400), "%v", answer)
			Expect(answer["body"]).To(HaveKeyWithValue("message", ContainSubstring("not allowed to submit to this form")))
		})
	})

	Describe("a page using /client/script.js on a form protected by formd's proof of work", func() {
		BeforeEach(func() {
			r := f.Patch(form.Token, "/v1/forms/"+form.ID, map[string]any{"captcha": map[string]any{"provider": "formd"}})
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			site = StartSite(map[string]string{"/contact.html": page(`
				<form data-formd data-formd-pow action="{{formd}}/submit/{{key}}" method="POST">
				  <label for="email">Email</label> <input id="email" name="email">
				  <label for="message">Message</label> <textarea id="message" name="message"></textarea>
				  <button type="submit">Send</button>
				</form>
				<script src="{{formd}}/client/script.js"></script>`)})
			tab.Do(chromedp.Navigate(site.URL+"/contact.html"),
				chromedp.Poll[chromedp.Void](`window.formd !== undefined`, chromedp.WithPollingTimeout(BrowserTimeout)))
		})

		It("solves the challenge in a Web Worker and posts the solution with the form", func() {
			By("watching the workers the page starts and what it posts")
			tab.Eval(`(() => {
				window.workers = 0;
				const RealWorker = window.Worker;
				window.Worker = function (src) { window.workers++; return new RealWorker(src); };
				window.posted = [];
				const realFetch = window.fetch;
				window.fetch = (url, init) => {
					if (init && init.method === "POST") window.posted.push({body: init.body, at: performance.now()});
					return realFetch(url, init);
				};
				document.querySelector("form").addEventListener("submit", () => { window.clickedAt = performance.now(); }, true);
				return true;
			})()`, nil)
			tab.Do(chromedp.SendKeys(chromedp.CSS("#email"), "pow@example.test"),
				chromedp.SendKeys(chromedp.CSS("#message"), "Solved in the browser"),
				chromedp.Click(chromedp.CSS("button")),
				chromedp.WaitVisible(chromedp.CSS(`[data-formd-status][data-state="success"]`)))
			Expect(f.Mail.WaitForMail(form.Recipient).Text).To(ContainSubstring("Solved in the browser"))

			var seen struct {
				Workers int     `json:"workers"`
				Body    string  `json:"body"`
				Solving float64 `json:"solving"`
			}
			tab.Eval(`({workers: window.workers, body: window.posted[0].body, solving: window.posted[0].at - window.clickedAt})`, &seen)
			Expect(seen.Workers).To(Equal(1), "the challenge is solved in a Web Worker")
			var posted map[string]string
			Expect(json.Unmarshal([]byte(seen.Body), &posted)).To(Succeed())
			Expect(posted).To(HaveKeyWithValue("email", "pow@example.test"))
			solution := decodeSolution(posted["altcha"])
			Expect(solution).To(HaveKeyWithValue("algorithm", "SHA-256"))
			Expect(solution).To(HaveKey("number"))
			// Measured, never asserted: fetching and solving one challenge.
			AddReportEntry("proof of work in Chromium (fetch + solve, ms)", fmt.Sprintf("%.0f (number %v of at most 50000)", seen.Solving, solution["number"]))
			fmt.Fprintf(GinkgoWriter, "proof of work: %.0f ms to fetch and solve, number %v\n", seen.Solving, solution["number"])
			Expect(notifications()).To(Equal(1))
		})
	})

	It("cannot use a session on the control plane from another site", func() {
		site = StartSite(map[string]string{"/app.html": page(`<p>Someone else's site.</p>`)})
		tab.Do(chromedp.Navigate(site.URL + "/app.html"))
		// Straight to formd, not through the checking proxy: an OPTIONS
		// preflight of /v1 is deliberately outside the contract.
		var outcome string
		tab.Eval(fmt.Sprintf(`fetch(%q, {headers: {"Authorization": "Bearer " + %q}})
			.then(r => "read HTTP " + r.status, e => "blocked: " + e.name)`, f.URL+"/v1/forms", form.Token), &outcome)
		Expect(outcome).To(Equal("blocked: TypeError"), "the browser must refuse the cross-site read")
	})

	Describe("a page using /client/script.js", func() {
		BeforeEach(func() {
			By("including the helper with its Subresource Integrity hash, as docs/submitting.md shows")
			script := f.Get("", "/client/script.js")
			Expect(script.Status).To(Equal(http.StatusOK))
			sum := sha512.Sum384(script.Body)
			integrity := "sha384-" + base64.StdEncoding.EncodeToString(sum[:])
			site = StartSite(map[string]string{"/contact.html": page(`
				<form data-formd action="{{formd}}/submit" method="POST">
				  <input type="hidden" name="access_key" value="{{key}}">
				  <label for="email">Email</label> <input id="email" name="email">
				  <label for="message">Message</label> <textarea id="message" name="message"></textarea>
				  <button type="submit">Send</button>
				</form>
				<script src="{{formd}}/client/script.js" integrity="` + integrity + `" crossorigin="anonymous"></script>`)})
			tab.Do(chromedp.Navigate(site.URL+"/contact.html"),
				chromedp.Poll[chromedp.Void](`window.formd !== undefined`, chromedp.WithPollingTimeout(BrowserTimeout)))
		})

		It("shows a field's error next to its input, and the summary in a live region", func() {
			tab.Do(chromedp.SendKeys(chromedp.CSS("#email"), "not-an-email"),
				chromedp.SendKeys(chromedp.CSS("#message"), "Hello"),
				chromedp.Click(chromedp.CSS("button")),
				chromedp.WaitVisible(chromedp.CSS(".formd-error")))
			var state struct {
				Invalid     string `json:"invalid"`
				DescribedBy string `json:"describedBy"`
				NoteID      string `json:"noteId"`
				NoteText    string `json:"noteText"`
				NextToInput bool   `json:"nextToInput"`
				Live        string `json:"live"`
				Summary     string `json:"summary"`
				Stayed      string `json:"stayed"`
			}
			tab.Eval(`(() => {
				const input = document.getElementById("email"), note = document.querySelector(".formd-error");
				const region = document.querySelector("[data-formd-status]");
				return {invalid: input.getAttribute("aria-invalid"), describedBy: input.getAttribute("aria-describedby"),
					noteId: note.id, noteText: note.textContent, nextToInput: input.nextElementSibling === note,
					live: region.getAttribute("aria-live"), summary: region.textContent, stayed: location.href};
			})()`, &state)
			Expect(state.Invalid).To(Equal("true"))
			Expect(state.NextToInput).To(BeTrue(), "the error sits right after its input")
			Expect(state.DescribedBy).To(Equal(state.NoteID), "the input is described by its error")
			Expect(state.NoteText).NotTo(BeEmpty())
			Expect(state.Live).To(Equal("polite"))
			Expect(state.Summary).To(ContainSubstring("Submission validation failed."))
			Expect(state.Stayed).To(Equal(site.URL+"/contact.html"), "the page stays: no 303 for script clients")
			Consistently(notifications).WithTimeout(300 * time.Millisecond).Should(BeZero())

			By("correcting the field clears its error and sends")
			tab.Eval(`document.getElementById("email").value = ""`, nil)
			tab.Do(chromedp.SendKeys(chromedp.CSS("#email"), "fixed@example.test"),
				chromedp.Click(chromedp.CSS("button")),
				chromedp.WaitVisible(chromedp.CSS(`[data-formd-status][data-state="success"]`)))
			var errorsLeft int
			tab.Eval(`document.querySelectorAll(".formd-error, [aria-invalid]").length`, &errorsLeft)
			Expect(errorsLeft).To(BeZero())
			Expect(f.Mail.WaitForMail(form.Recipient).Text).To(ContainSubstring("fixed@example.test"))
		})

		It("submits once on a double click and shows the success message", func() {
			tab.Do(chromedp.SendKeys(chromedp.CSS("#email"), "double@example.test"),
				chromedp.SendKeys(chromedp.CSS("#message"), "Clicked twice"))
			tab.Eval(`(() => { window.presses = 0; window.addEventListener("pointerdown", () => window.presses++, true); return 0; })()`, nil)
			tab.DoubleClick("button")
			tab.Do(chromedp.WaitVisible(chromedp.CSS(`[data-formd-status][data-state="success"]`)))
			var presses int
			tab.Eval(`window.presses`, &presses)
			Expect(presses).To(Equal(2), "the button was pressed twice")
			Expect(tab.Text("[data-formd-status]")).To(Equal("Email sent successfully!"))
			var message string
			tab.Eval(`document.getElementById("message").value`, &message)
			Expect(message).To(BeEmpty(), "the form is cleared for the next visitor")

			By("a click after the answer (a slow double click) sending nothing, not even the cleared form")
			tab.Do(chromedp.Click(chromedp.CSS("button")))
			Expect(tab.Attribute("[data-formd-status]", "data-state")).To(Equal("success"))

			By("the recipient gets exactly one notification")
			Expect(f.Mail.WaitForMail(form.Recipient).Text).To(ContainSubstring("Clicked twice"))
			Consistently(notifications).
				WithTimeout(time.Second).WithPolling(50 * time.Millisecond).Should(Equal(1))
		})

		It("sends a retried post with the same Idempotency-Key, so it queues once", func() {
			By("recording the keys the helper sends")
			tab.Eval(`(() => {
				window.sentKeys = [];
				const realFetch = window.fetch;
				window.fetch = (url, init) => { window.sentKeys.push(init.headers["Idempotency-Key"]); return realFetch(url, init); };
				return true;
			})()`, nil)
			tab.Do(chromedp.SendKeys(chromedp.CSS("#email"), "retry@example.test"),
				chromedp.SendKeys(chromedp.CSS("#message"), "Sent, then sent again"))
			By("a first post whose answer the browser never sees (the network dropped it)")
			tab.Eval(`(() => {
				const realFetch = window.fetch;
				window.fetch = (url, init) => { window.fetch = realFetch; return realFetch(url, init).then(() => { throw new TypeError("network down"); }); };
				return true;
			})()`, nil)
			tab.Do(chromedp.Click(chromedp.CSS("button")),
				chromedp.WaitVisible(chromedp.CSS(`[data-formd-status][data-state="error"]`)))
			Expect(f.Mail.WaitForMail(form.Recipient).Text).To(ContainSubstring("Sent, then sent again"))
			By("the visitor presses Send again")
			tab.Do(chromedp.Click(chromedp.CSS("button")),
				chromedp.WaitVisible(chromedp.CSS(`[data-formd-status][data-state="success"]`)))
			var keys []string
			tab.Eval(`window.sentKeys`, &keys)
			Expect(keys).To(HaveLen(2))
			Expect(keys[0]).NotTo(BeEmpty())
			Expect(keys[1]).To(Equal(keys[0]), "a retry of the same filled-in form reuses its key")
			Consistently(notifications).
				WithTimeout(time.Second).WithPolling(50 * time.Millisecond).Should(Equal(1))
		})
	})
	It("uploads a file marked data-formd-upload through GET /upload, then submits its key", func() {
		f.Grant(form.OwnerEmail, "file_uploads")
		Expect(f.Patch(form.Token, "/v1/forms/"+form.ID, map[string]any{"uploadsEnabled": true}).Status).To(Equal(http.StatusOK))
		// Not cv.pdf: the multipart spec looks for that name on this shared formd.
		cv := filepath.Join(GinkgoT().TempDir(), "resume.pdf")
		Expect(os.WriteFile(cv, samplePDF, 0o600)).To(Succeed())
		site = StartSite(map[string]string{"/apply.html": page(`
			<form data-formd action="{{formd}}/submit/{{key}}" method="POST">
			  <label for="email">Email</label> <input id="email" name="email" value="applicant@example.test">
			  <label for="cv">CV</label> <input id="cv" type="file" name="cv" data-formd-upload>
			  <button type="submit">Apply</button>
			</form>
			<script src="{{formd}}/client/script.js"></script>`)})
		tab.Do(chromedp.Navigate(site.URL+"/apply.html"),
			chromedp.Poll[chromedp.Void](`window.formd !== undefined`, chromedp.WithPollingTimeout(BrowserTimeout)),
			chromedp.SetUploadFiles(chromedp.CSS("#cv"), []string{cv}),
			chromedp.Click(chromedp.CSS("button")),
			chromedp.WaitVisible(chromedp.CSS(`[data-formd-status][data-state="success"]`)))
		m := f.Mail.WaitForMail(form.Recipient)
		Expect(m.Attachments).To(BeEmpty(), "the file went to storage, not into the post")
		Expect(m.Text).To(ContainSubstring("cv: resume.pdf (application/pdf"))
		resp, got := download(linkInMail.FindString(m.Text))
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(got).To(Equal(samplePDF))
	})
})
