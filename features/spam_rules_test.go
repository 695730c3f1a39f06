package features_test

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// msgSpamContent is what a submitter refused by the spam gate is told.
const msgSpamContent = "Submission rejected by the form's content filter: it was judged to be spam."

// spamChanges lists the spam changes of a form's audit trail as
// "type: from -> to", oldest first.
func spamChanges(events []map[string]any) []string {
	GinkgoHelper()
	var out []string
	for _, ev := range events {
		for _, c := range ev["changes"].([]any) {
			change := c.(map[string]any)
			if change["field"] == "spam" {
				out = append(out, fmt.Sprintf("%s: %v -> %v", ev["type"], change["from"], change["to"]))
			}
		}
	}
	return out
}

// spamPolicy is a spam setting as PATCH takes it; nil rules are left out.
func spamPolicy(mode string, rules map[string]any) map[string]any {
	spam := map[string]any{"mode": mode}
	if rules != nil {
		spam["rules"] = rules
	}
	return map[string]any{"spam": spam}
}

var _ = Describe("Spam rules", Ordered, func() {
	var f *Formd
	var db *DB
	var receiver *webhookReceiver

	BeforeAll(func() {
		receiver = startWebhookReceiver()
		f = StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		db = f.OpenDB()
	})

	submitMessage := func(lf LiveForm, message string, headers ...http.Header) *Response {
		GinkgoHelper()
		if len(headers) == 0 {
			headers = []http.Header{fromExampleCom()}
		}
		return f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "email": "ada@example.org", "subject": "Hello",
			"message": message}, headers...)
	}

	It("is off by default, set by create and PATCH, refused naming the field, and every change is in the audit trail", func() {
		token, _ := f.RegisteredVerifiedUser()
		off := map[string]any{"mode": "off", "rules": map[string]any{"allowIps": []any{}, "blockIps": []any{}, "blockEmailDomains": []any{},
			"blockDisposable": false, "blockWords": []any{}, "blockPatterns": []any{}, "maxLinks": 0.0, "allowedScripts": []any{}}}

		By("a form created without it has the spam mode off, and its creation records no spam policy")
		r := f.Post(token, "/v1/forms", contactForm(nil))
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
		id := r.Object("form")["id"].(string)
		Expect(r.Object("form")).To(HaveKeyWithValue("spam", off))
		Expect(spamChanges(f.Events(token, id))).To(BeEmpty())

		By("bad settings are refused with 400, naming the field, and change nothing")
		for _, bad := range []struct {
			spam  map[string]any
			field string
		}{
			{spamPolicy("quarantine", nil), "spam.mode"},
			{map[string]any{"spam": map[string]any{"mode": "hold", "holdDays": 91}}, "spam.holdDays"},
			{map[string]any{"spam": map[string]any{"mode": "tag", "holdDays": 7}}, "spam.holdDays"},
			{spamPolicy("tag", map[string]any{"blockIps": []string{"203.0.113.0/24", "not-an-ip"}}), "spam.rules.blockIps[1]"},
			{spamPolicy("tag", map[string]any{"allowIps": []string{"10.0.0.0/40"}}), "spam.rules.allowIps[0]"},
			{spamPolicy("tag", map[string]any{"blockEmailDomains": []string{"me@spam.example"}}), "spam.rules.blockEmailDomains[0]"},
			{spamPolicy("tag", map[string]any{"blockPatterns": []string{"ok", "(a+)+"}}), "spam.rules.blockPatterns[1]"},
			{spamPolicy("tag", map[string]any{"allowedScripts": []string{"Latin", "Klingon"}}), "spam.rules.allowedScripts[1]"},
			{spamPolicy("tag", map[string]any{"maxLinks": -1}), "spam.rules.maxLinks"},
		} {
			ExpectError(f.Patch(token, "/v1/forms/"+id, bad.spam), http.StatusBadRequest, bad.field+": ")
		}
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("spam", off))

		By("PATCH sets tag mode with rules, written the canonical way")
		r = f.Patch(token, "/v1/forms/"+id, spamPolicy("tag", map[string]any{"blockIps": []string{"203.0.113.9/24"},
			"blockWords": []string{"viagra"}, "allowedScripts": []string{"latin"}, "maxLinks": 3}))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		spam := r.Object("form")["spam"].(map[string]any)
		Expect(spam["mode"]).To(Equal("tag"))
		Expect(spam["rules"]).To(And(HaveKeyWithValue("blockIps", []any{"203.0.113.0/24"}), HaveKeyWithValue("blockWords", []any{"viagra"}),
			HaveKeyWithValue("allowedScripts", []any{"Latin"}), HaveKeyWithValue("maxLinks", 3.0)))

		By("a PATCH of another setting keeps the policy")
		r = f.Patch(token, "/v1/forms/"+id, map[string]any{"subjectDefault": "Hi"})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Object("form")["spam"]).To(HaveKeyWithValue("mode", "tag"))

		By("switching it off with no rules")
		r = f.Patch(token, "/v1/forms/"+id, spamPolicy("off", nil))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Object("form")).To(HaveKeyWithValue("spam", off))

		By("the audit trail holds both changes as settings_changed events")
		Expect(spamChanges(f.Events(token, id))).To(Equal([]string{
			"form.settings_changed.v1: <nil> -> map[mode:tag rules:map[allowedScripts:[Latin] blockIps:[203.0.113.0/24] blockWords:[viagra] maxLinks:3]]",
			"form.settings_changed.v1: map[mode:tag rules:map[allowedScripts:[Latin] blockIps:[203.0.113.0/24] blockWords:[viagra] maxLinks:3]] -> <nil>",
		}))
	})

	It("in reject mode refuses a submission with a blocked word with 400 and delivers nothing; a clean one is delivered", func() {
		lf := f.LiveForm(spamPolicy("reject", map[string]any{"blockWords": []string{"viagra"}}))
		Expect(lf.Form["spam"]).To(HaveKeyWithValue("mode", "reject"), "set at creation")

		r := submitMessage(lf, "Cheap VIAGRA, today only")
		ExpectError(r, http.StatusBadRequest, msgSpamContent)
		Expect(r.JSON["message"]).NotTo(ContainSubstring("viagra"), "a live refusal does not name the rule")
		expectNothingQueued(f, db, lf.ID, lf.Recipient, 1)

		r = submitMessage(lf, "I would like a quote for the garden")
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(f.Mail.WaitForMail(lf.Recipient).Subject).To(Equal("Hello"), "a clean submission is not marked")
	})

	It("in tag mode delivers spam with [SPAM] in the subject and chat messages and a spam object in the webhook body", func() {
		lf := f.LiveForm(spamPolicy("tag", map[string]any{"blockWords": []string{"viagra"}, "maxLinks": 1}))
		for typ, path := range map[string]string{"webhook": "/spam-tag", "slack": "/spam-tag-slack", "discord": "/spam-tag-discord"} {
			r := f.Patch(lf.Token, integrationsPath(lf.ID, typ), map[string]any{"enabled": true, "targetUrl": receiver.URL(path)})
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		}
		// chatLines are the lines of the n-th Slack and Discord messages.
		chatLines := func(n int) (slack, discord []string) {
			GinkgoHelper()
			Eventually(func() []webhookCall { return receiver.Calls("/spam-tag-slack") }).WithTimeout(15 * time.Second).Should(HaveLen(n + 1))
			Eventually(func() []webhookCall { return receiver.Calls("/spam-tag-discord") }).WithTimeout(15 * time.Second).Should(HaveLen(n + 1))
			return strings.Split(receiver.Calls("/spam-tag-slack")[n].JSON()["text"].(string), "\n"),
				strings.Split(receiver.Calls("/spam-tag-discord")[n].JSON()["content"].(string), "\n")
		}

		r := submitMessage(lf, "viagra at http://a.example and https://b.example")
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(f.Mail.WaitForMail(lf.Recipient).Subject).To(Equal("[SPAM] Hello"))
		Eventually(func() []webhookCall { return receiver.Calls("/spam-tag") }).WithTimeout(15 * time.Second).Should(HaveLen(1))
		Expect(receiver.Calls("/spam-tag")[0].JSON()).To(HaveKeyWithValue("spam", map[string]any{"verdict": "spam", "score": 2.0,
			"reasons": []any{`blockWords matched "viagra"`, "maxLinks 2 > 1"}}))
		slack, discord := chatLines(0)
		Expect(slack[:2]).To(Equal([]string{"[SPAM] New submission to " + lf.Form["name"].(string),
			`Spam score 2: blockWords matched "viagra"; maxLinks 2 &gt; 1`}), "Slack's escaping")
		Expect(discord[0]).To(HavePrefix("[SPAM] New submission to "))
		Expect(discord[1]).To(Equal(`Spam score 2: blockWords matched "viagra"; maxLinks 2 \> 1`), "Discord's escaping")

		By("a clean submission to the same form is neither marked nor carries a spam object")
		r = submitMessage(lf, "Hello there")
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(f.Mail.WaitForMail(lf.Recipient).Subject).To(Equal("Hello"))
		Eventually(func() []webhookCall { return receiver.Calls("/spam-tag") }).WithTimeout(15 * time.Second).Should(HaveLen(2))
		Expect(receiver.Calls("/spam-tag")[1].JSON()).NotTo(HaveKey("spam"))
		slack, discord = chatLines(1)
		for _, lines := range [][]string{slack, discord} {
			Expect(lines[0]).To(HavePrefix("New submission to "))
			Expect(lines).NotTo(ContainElement(HavePrefix("Spam score")))
		}
	})

	It("lets an allowed IP through whatever else matches", func() {
		lf := f.LiveForm(spamPolicy("reject", map[string]any{"blockWords": []string{"viagra"}, "blockIps": []string{"127.0.0.0/8", "::1"},
			"allowIps": []string{"127.0.0.1", "::1"}}))
		r := submitMessage(lf, "viagra")
		Expect(r.Status).To(Equal(http.StatusOK), "allowIps wins: %s", r)

		r = f.Patch(lf.Token, "/v1/forms/"+lf.ID, spamPolicy("reject", map[string]any{"blockWords": []string{"viagra"}}))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		ExpectError(submitMessage(lf, "viagra"), http.StatusBadRequest, msgSpamContent)
	})

	It("is set by the MCP tools create_form and update_form, with the same refusals", func() {
		token, _ := f.RegisteredVerifiedUser()
		agent := f.ConnectMCP(token)
		created := agent.MustCall("create_form", map[string]any{"name": "MCP contact", "recipientEmail": UniqueEmail("mcp-spam"),
			"spam": map[string]any{"mode": "reject"}}).Object("form")
		Expect(created["spam"]).To(HaveKeyWithValue("mode", "reject"))
		id := created["id"].(string)

		updated := agent.MustCall("update_form", map[string]any{"formId": id,
			"spam": map[string]any{"mode": "tag", "rules": map[string]any{"blockDisposable": true}}}).Object("form")
		Expect(updated["spam"]).To(And(HaveKeyWithValue("mode", "tag"), HaveKeyWithValue("rules", HaveKeyWithValue("blockDisposable", true))))
		bad := agent.Call("update_form", map[string]any{"formId": id, "spam": map[string]any{"mode": "tag",
			"rules": map[string]any{"blockWords": []string{"ok", "!!!"}}}})
		Expect(bad.IsError).To(BeTrue())
		Expect(bad.Text).To(ContainSubstring("spam.rules.blockWords[1]"))
		Expect(spamChanges(f.Events(token, id))).To(HaveLen(2), "created with a policy, then changed")
	})

	It("shows the spam gate with every rule's outcome and the score in the dry run's gate trace", func() {
		lf := f.LiveForm(spamPolicy("reject", map[string]any{"blockWords": []string{"viagra"}, "blockDisposable": true,
			"allowIps": []string{"192.0.2.0/24"}}))

		r := submitMessage(lf, "viagra", dryRunHeader("true"))
		Expect(r.Status).To(Equal(http.StatusBadRequest), "%s", r)
		Expect(gateVerdicts(r)).To(ContainElements("honeypot=passed", "spam=failed"))
		msg := gateMessage(r, "spam")
		Expect(msg).To(ContainSubstring(msgSpamContent))
		Expect(msg).To(ContainSubstring("spam, score 1"))
		Expect(msg).To(ContainSubstring("allowIps no match"))
		Expect(msg).To(ContainSubstring("blockDisposable no match"))
		Expect(msg).To(ContainSubstring(`blockWords matched "viagra"`))

		By("a clean dry run passes the gate and still says each rule's outcome")
		r = submitMessage(lf, "hello", dryRunHeader("true"))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(gateVerdicts(r)).To(ContainElement("spam=passed"))
		Expect(gateMessage(r, "spam")).To(ContainSubstring("not spam, score 0"))

		By("with the mode off, the gate is skipped")
		Expect(f.Patch(lf.Token, "/v1/forms/"+lf.ID, spamPolicy("off", nil)).Status).To(Equal(http.StatusOK))
		r = submitMessage(lf, "viagra", dryRunHeader("true"))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(gateVerdicts(r)).To(ContainElement("spam=skipped"))
	})
})

var _ = Describe("Spam rules in the dashboard", func() {
	It("are set in the form settings' Spam section, refused next to the field, and told in the audit trail", func() {
		f := shared
		token, email := f.RegisteredVerifiedUser()
		r := f.Post(token, "/v1/forms", contactForm(nil))
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
		id := r.Object("form")["id"].(string)
		tab := NewTab()
		signIn(tab, f, email)
		save := chromedp.Click(chromedp.CSS(`form[action$="/settings"] button[type=submit]`))

		By("the Settings tab offers the spam mode, off")
		tab.Do(chromedp.Navigate(f.URL+"/dashboard/forms/"+id+"/settings"), chromedp.WaitVisible(chromedp.CSS("#spamMode")))
		var mode string
		tab.Eval(`document.querySelector("#spamMode").value`, &mode)
		Expect(mode).To(Equal("off"))

		By("a blocked IP that is none is refused next to its field, and nothing is saved")
		tab.Do(chromedp.SetValue(chromedp.CSS("#spamMode"), "tag"),
			chromedp.SetValue(chromedp.CSS("#spamBlockIps"), "203.0.113.0/24\nnot-an-ip"),
			chromedp.SetValue(chromedp.CSS("#spamBlockWords"), "viagra\nfree money, now"), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#spamBlockIps-error")))
		Expect(tab.Text("#spamBlockIps-error")).To(ContainSubstring(`"not-an-ip" is not an IP address`))
		Expect(tab.Attribute("#spamBlockIps", "aria-invalid")).To(Equal("true"))
		Expect(f.FormByID(token, id)["spam"]).To(HaveKeyWithValue("mode", "off"))

		By("corrected, the policy is saved and readable by the API, words kept whole with their commas")
		tab.Do(chromedp.SetValue(chromedp.CSS("#spamBlockIps"), "203.0.113.0/24"), save, chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		spam := f.FormByID(token, id)["spam"].(map[string]any)
		Expect(spam["mode"]).To(Equal("tag"))
		Expect(spam["rules"]).To(And(HaveKeyWithValue("blockIps", []any{"203.0.113.0/24"}),
			HaveKeyWithValue("blockWords", []any{"viagra", "free money, now"})))
		tab.Eval(`document.querySelector("#spamMode").value`, &mode)
		Expect(mode).To(Equal("tag"), "the page shows the saved mode")
		checkPage(tab, "form-settings-spam")

		By("the Audit trail tab tells the change in words")
		tab.Do(chromedp.Navigate(f.URL+"/dashboard/forms/"+id+"/audit"), chromedp.WaitVisible(chromedp.CSS("main")))
		Expect(tab.Text("main")).To(ContainSubstring("tag, 2 rules"))
	})
})
