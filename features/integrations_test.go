package features_test

import (
	"encoding/base64"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const sampleSpreadsheetID = "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms"

// integrationsPath is a form's integrations route, with a type when given.
func integrationsPath(formID string, typ ...string) string {
	p := "/v1/forms/" + formID + "/integrations"
	if len(typ) > 0 {
		p += "/" + typ[0]
	}
	return p
}

// expectStandardWebhooksSecret checks the Standard Webhooks format: whsec_
// and the base64 of 32 bytes.
func expectStandardWebhooksSecret(secret any) string {
	GinkgoHelper()
	s, _ := secret.(string)
	Expect(s).To(HavePrefix("whsec_"))
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
	Expect(err).NotTo(HaveOccurred(), "the secret after whsec_ is base64")
	Expect(raw).To(HaveLen(32))
	return s
}

var _ = Describe("Form integrations", func() {
	var f *Formd
	BeforeEach(func() { f = shared })

	Describe("of PATCH /v1/forms/{formId}/integrations/{type}", Ordered, ContinueOnFailure, func() {
		var token, formID string
		BeforeAll(func() {
			f = shared
			token, _ = f.RegisteredVerifiedUser()
			form, _ := f.CreateForm(token, contactForm(nil))
			formID = form["id"].(string)
		})

		DescribeTable("configures each type",
			func(typ string, body map[string]any, want map[string]any, left []string) {
				r := f.Patch(token, integrationsPath(formID, typ), body)
				Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
				got := r.Object("integration")
				Expect(got).To(HaveKeyWithValue("type", typ))
				for k, v := range want {
					Expect(got).To(HaveKeyWithValue(k, v), "%s", r)
				}
				for _, k := range left {
					Expect(got).NotTo(HaveKey(k), "%s does not apply to %s", k, typ)
				}
				Expect(got).To(HaveKey("createdAt"))
				Expect(got).To(HaveKey("updatedAt"))
			},
			Entry("a webhook", "webhook", map[string]any{"enabled": true, "targetUrl": "https://hooks.example.com/formd"},
				map[string]any{"enabled": true, "targetUrl": "https://hooks.example.com/…"}, []string{"chatId", "spreadsheetId", "sheetName"}),
			Entry("Slack", "slack", map[string]any{"enabled": true, "targetUrl": "https://hooks.slack.com/services/T0/B0/x"},
				map[string]any{"enabled": true, "targetUrl": "https://hooks.slack.com/…B0/x"}, []string{"chatId", "secretPrefix", "secret"}),
			Entry("Slack's payload to Mattermost", "slack", map[string]any{"targetUrl": "https://chat.example.org/hooks/abc"},
				map[string]any{"enabled": true, "targetUrl": "https://chat.example.org/…"}, []string{"secretPrefix"}),
			Entry("Discord, disabled", "discord", map[string]any{"enabled": false, "targetUrl": "https://discord.com/api/webhooks/1/x"},
				map[string]any{"enabled": false, "targetUrl": "https://discord.com/…/1/x"}, []string{"chatId", "secretPrefix"}),
			Entry("Telegram, waiting for its chat to be connected", "telegram", map[string]any{"enabled": true},
				map[string]any{"enabled": true, "chatId": "", "connect": HaveKeyWithValue("command", HavePrefix("/start "))}, []string{"targetUrl", "secretPrefix"}),
			Entry("Google Sheets", "google_sheets", map[string]any{"enabled": true, "spreadsheetId": sampleSpreadsheetID, "sheetName": "Leads"},
				map[string]any{"enabled": true, "spreadsheetId": sampleSpreadsheetID, "sheetName": "Leads"}, []string{"targetUrl", "chatId"}),
		)

		DescribeTable("answers 400 naming the field and changes nothing",
			func(typ string, body any, fragments ...string) {
				before := len(f.Events(token, formID))
				ExpectError(f.Patch(token, integrationsPath(formID, typ), body), http.StatusBadRequest, fragments...)
				Expect(f.Events(token, formID)).To(HaveLen(before))
			},
			Entry("a webhook targetUrl that is http", "webhook", map[string]any{"targetUrl": "http://hooks.example.com/"}, "targetUrl", "https"),
			Entry("a webhook targetUrl that is relative", "webhook", map[string]any{"targetUrl": "/hook"}, "targetUrl"),
			Entry("a webhook targetUrl whose host is a decimal IPv4", "webhook", map[string]any{"targetUrl": "https://2130706433/"}, "targetUrl"),
			Entry("a Slack targetUrl with credentials", "slack", map[string]any{"targetUrl": "https://u:p@hooks.slack.com/x"}, "targetUrl"),
			Entry("a Discord targetUrl that is not a URL", "discord", map[string]any{"targetUrl": "discord"}, "targetUrl"),
			Entry("enabling Discord without a targetUrl", "discord", map[string]any{"enabled": true, "targetUrl": ""}, "targetUrl"),
			Entry("a Telegram chatId typed in", "telegram", map[string]any{"chatId": "-1001234567890"}, "chatId", "cannot be set", "/start"),
			Entry("a Telegram channel typed in", "telegram", map[string]any{"enabled": true, "chatId": "@formd_news"}, "chatId", "cannot be set"),
			Entry("a Telegram targetUrl", "telegram", map[string]any{"targetUrl": "https://api.telegram.org/"}, "targetUrl"),
			Entry("a spreadsheetId that is not one", "google_sheets", map[string]any{"spreadsheetId": "a/b"}, "spreadsheetId"),
			Entry("a sheetName over two lines", "google_sheets", map[string]any{"sheetName": "a\nb"}, "sheetName"),
			Entry("enabling Sheets without a sheetName", "google_sheets", map[string]any{"enabled": true, "sheetName": ""}, "sheetName"),
			Entry("enabled of the wrong type", "webhook", RawJSON(`{"enabled": "yes"}`), "enabled"),
			Entry("an unknown type", "email", map[string]any{"enabled": true}, "type"),
		)

		It("lists them, the webhook with only its secret's prefix", func() {
			r := f.Get(token, integrationsPath(formID))
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			list := r.Array("integrations")
			types := make([]any, len(list))
			for i, in := range list {
				types[i] = in.(map[string]any)["type"]
				Expect(in).NotTo(HaveKey("secret"))
			}
			Expect(types).To(Equal([]any{"webhook", "slack", "discord", "telegram", "google_sheets"}))
			Expect(list[0]).To(HaveKeyWithValue("secretPrefix", HavePrefix("whsec_")))
			Expect(list[1]).To(HaveKeyWithValue("targetUrl", "https://chat.example.org/…"), "the later PATCH kept enabled and changed the URL (masked)")
		})

		It("keeps another account out", func() {
			other, _ := f.RegisteredVerifiedUser()
			ExpectError(f.Get(other, integrationsPath(formID)), http.StatusNotFound)
			ExpectError(f.Patch(other, integrationsPath(formID, "slack"), map[string]any{"enabled": false}), http.StatusNotFound)
			ExpectError(f.Post(other, integrationsPath(formID, "webhook")+"/rotate-secret", nil), http.StatusNotFound)
			Expect(f.Get(token, integrationsPath(formID)).Array("integrations")[1]).To(HaveKeyWithValue("enabled", true))
		})
	})

	It("records each change in the audit trail with its actor", func() {
		token, _ := f.RegisteredVerifiedUser()
		form, _ := f.CreateForm(token, contactForm(nil))
		id := form["id"].(string)
		created := f.Patch(token, integrationsPath(id, "telegram"), map[string]any{})
		Expect(created.Status).To(Equal(http.StatusOK), "%s", created)
		enabled := f.Patch(token, integrationsPath(id, "telegram"), map[string]any{"enabled": true, "chatId": nil})
		Expect(enabled.Status).To(Equal(http.StatusOK), "%s", enabled)
		Expect(enabled.Object("integration")).To(HaveKeyWithValue("chatId", ""), "null keeps the value")
		same := f.Patch(token, integrationsPath(id, "telegram"), map[string]any{"enabled": true})
		Expect(same.Status).To(Equal(http.StatusOK), "%s", same)

		events := f.Events(token, id)
		Expect(events).To(HaveLen(3), "a patch that changes nothing records no event")
		for _, e := range events[1:] {
			Expect(e).To(HaveKeyWithValue("type", "form.integration_configured.v1"))
			actor, _ := e["actor"].(map[string]any)
			Expect(actor).To(HaveKeyWithValue("type", "session"))
			Expect(HashPrefixOf(token, actor["id"].(string))).To(BeTrue(), "the actor is the caller's session")
		}
		Expect(events[1]).To(HaveKeyWithValue("requestId", created.RequestID()))
		Expect(events[1]["changes"]).To(ConsistOf(
			change("integrations.telegram.enabled", nil, false),
			change("integrations.telegram.chatId", nil, ""),
		))
		Expect(events[2]).To(HaveKeyWithValue("requestId", enabled.RequestID()))
		Expect(events[2]["changes"]).To(ConsistOf(change("integrations.telegram.enabled", false, true)))
	})

	It("shows a webhook's signing secret once, then only its prefix, and rotates it", func() {
		token, _ := f.RegisteredVerifiedUser()
		form, _ := f.CreateForm(token, contactForm(nil))
		id := form["id"].(string)

		By("refusing to rotate the secret of a webhook never configured")
		ExpectError(f.Post(token, integrationsPath(id, "webhook")+"/rotate-secret", nil), http.StatusBadRequest, "webhook")

		By("configuring the webhook, which makes its secret")
		first := f.Patch(token, integrationsPath(id, "webhook"), map[string]any{"targetUrl": "https://hooks.example.com/a"})
		Expect(first.Status).To(Equal(http.StatusOK), "%s", first)
		Expect(first.Header.Get("Cache-Control")).To(Equal("no-store"))
		hook := first.Object("integration")
		secret := expectStandardWebhooksSecret(hook["secret"])
		Expect(hook).To(HaveKeyWithValue("secretPrefix", secret[:10]))

		By("never showing it again")
		again := f.Patch(token, integrationsPath(id, "webhook"), map[string]any{"enabled": true})
		Expect(again.Status).To(Equal(http.StatusOK), "%s", again)
		Expect(again.Object("integration")).NotTo(HaveKey("secret"))
		Expect(again.Object("integration")).To(HaveKeyWithValue("secretPrefix", secret[:10]))
		listed := f.Get(token, integrationsPath(id))
		Expect(listed.Body).NotTo(ContainSubstring(secret))
		Expect(listed.Array("integrations")).To(ConsistOf(HaveKeyWithValue("secretPrefix", secret[:10])))
		Expect(f.Get(token, "/v1/forms/"+id+"/events").Body).NotTo(ContainSubstring(secret))

		By("rotating it")
		rotated := f.Post(token, integrationsPath(id, "webhook")+"/rotate-secret", nil)
		Expect(rotated.Status).To(Equal(http.StatusOK), "%s", rotated)
		Expect(rotated.Header.Get("Cache-Control")).To(Equal("no-store"))
		next := expectStandardWebhooksSecret(rotated.Object("integration")["secret"])
		Expect(next).NotTo(Equal(secret))
		Expect(rotated.Object("integration")).To(SatisfyAll(
			HaveKeyWithValue("secretPrefix", next[:10]),
			HaveKeyWithValue("enabled", true),
			HaveKeyWithValue("targetUrl", "https://hooks.example.com/…"),
		))
		Expect(f.Get(token, integrationsPath(id)).Array("integrations")).To(ConsistOf(HaveKeyWithValue("secretPrefix", next[:10])))

		By("auditing the secrets by their prefixes only")
		events := f.Events(token, id)
		last := events[len(events)-1]
		Expect(last).To(HaveKeyWithValue("type", "form.webhook_secret_issued.v1"))
		Expect(last).To(HaveKeyWithValue("requestId", rotated.RequestID()))
		Expect(last["changes"]).To(ConsistOf(change("integrations.webhook.secretPrefix", secret[:10], next[:10])))
	})
})
