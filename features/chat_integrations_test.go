package features_test

import (
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("A form's Slack and Discord integrations", Ordered, func() {
	var f *Formd
	var db *DB
	var receiver *webhookReceiver
	var lf LiveForm

	BeforeAll(func() {
		receiver = startWebhookReceiver()
		f = StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		db = f.OpenDB()
		lf = f.LiveForm(map[string]any{"name": "Sales & <Support>"})
		for typ, path := range map[string]string{"slack": "/slack", "discord": "/discord"} {
			r := f.Patch(lf.Token, integrationsPath(lf.ID, typ), map[string]any{"enabled": true, "targetUrl": receiver.URL(path)})
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		}
	})

	// submit posts message with routing fields, a captcha token and the
	// honeypot, and waits for one call on each chat path; it returns the
	// Slack and Discord delivery ids and what each receiver got.
	submit := func(message string) (ids []string, slack, discord webhookCall) {
		GinkgoHelper()
		slackBefore, discordBefore := len(receiver.Calls("/slack")), len(receiver.Calls("/discord"))
		r := f.Post("", "/submit", orderedJSON("access_key", lf.AccessKey, "name", "Ada", "message", message,
			"botcheck", "", "subject", "Hi", "from_name", "Ada", "h-captcha-response", "captcha-token"), fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Array("webhookDeliveryIds")).To(BeEmpty())
		for _, id := range r.Array("notificationDeliveryIds") {
			ids = append(ids, id.(string))
		}
		Expect(ids).To(HaveLen(2), "one delivery per chat integration")
		Eventually(func() int { return len(receiver.Calls("/slack")) }).WithTimeout(10 * time.Second).Should(Equal(slackBefore + 1))
		Eventually(func() int { return len(receiver.Calls("/discord")) }).WithTimeout(10 * time.Second).Should(Equal(discordBefore + 1))
		return ids, receiver.Calls("/slack")[slackBefore], receiver.Calls("/discord")[discordBefore]
	}

	It("posts each service's message once per submission, escaped per its markup", func() {
		ids, slack, discord := submit("@everyone <@123> look: **bold** & _it_ `code` ~~s~~ ||spoiler|| > quote <https://x.example|link> [bank](https://evil.example)")
		Expect(ids[0]).To(MatchRegexp(uuidPattern))
		Expect(ids[1]).To(MatchRegexp(uuidPattern))
		Expect(ids[0]).NotTo(Equal(ids[1]))

		By("posting Slack's incoming-webhook payload: only text, &, < and > escaped")
		Expect(slack.Method).To(Equal(http.MethodPost))
		Expect(slack.Header.Get("Content-Type")).To(HavePrefix("application/json"))
		Expect(slack.JSON()).To(Equal(map[string]any{"text": "New submission to Sales &amp; &lt;Support&gt;\nname: Ada\n" +
			"message: @everyone &lt;@123&gt; look: **bold** &amp; _it_ `code` ~~s~~ ||spoiler|| &gt; quote &lt;https://x.example|link&gt; [bank](https://evil.example)"}))

		By("posting Discord's payload: markdown escaped, mentions neutralised and disallowed")
		Expect(discord.Method).To(Equal(http.MethodPost))
		Expect(discord.Header.Get("Content-Type")).To(HavePrefix("application/json"))
		Expect(discord.JSON()).To(Equal(map[string]any{
			"content": "New submission to Sales & <Support\\>\nname: Ada\n" +
				"message: @\u200beveryone <@\u200b123\\> look: \\*\\*bold\\*\\* & \\_it\\_ \\`code\\` \\~\\~s\\~\\~ \\|\\|spoiler\\|\\| \\> quote <https://x.example\\|link\\> \\[bank](https://evil.example)",
			"allowed_mentions": map[string]any{"parse": []any{}},
		}))

		By("never carrying routing fields, captcha tokens, the honeypot or the access key")
		for _, c := range []webhookCall{slack, discord} {
			for _, s := range []string{lf.AccessKey, "captcha-token", "botcheck", "from_name", "subject"} {
				Expect(string(c.Body)).NotTo(ContainSubstring(s))
			}
		}

		By("showing both in the delivery log with their kinds and the receiver's host as target")
		for i, kind := range []string{"slack", "discord"} {
			Eventually(func() string { row, _ := db.Delivery(ids[i]); return row.Status }).
				WithTimeout(5 * time.Second).Should(Equal("succeeded"))
			page, _ := deliveriesOf(f, lf.Token, lf.ID, "?kind="+kind)
			entry := deliveryIn(page, ids[i])
			Expect(entry).NotTo(BeNil(), "%s delivery %s in the log", kind, ids[i])
			Expect(entry).To(HaveKeyWithValue("kind", kind))
			Expect(entry).To(HaveKeyWithValue("target", "127.0.0.1"))
		}
		Consistently(func() []int { return []int{len(receiver.Calls("/slack")), len(receiver.Calls("/discord"))} }).
			WithTimeout(300*time.Millisecond).Should(Equal([]int{1, 1}), "exactly one request each")
	})

	It("keeps a Discord message within 2,000 characters", func() {
		_, slack, discord := submit(strings.Repeat("é", 3000))
		content := discord.JSON()["content"].(string)
		Expect(utf8.RuneCountInString(content)).To(Equal(2000))
		Expect(content).To(HaveSuffix("é…"))
		Expect(slack.JSON()["text"]).To(HaveSuffix(strings.Repeat("é", 3000)), "Slack takes the whole message")
	})

	It("stops posting when an integration is disabled", func() {
		r := f.Patch(lf.Token, integrationsPath(lf.ID, "discord"), map[string]any{"enabled": false})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		before := len(receiver.Calls("/discord"))
		r = f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Only Slack"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Array("notificationDeliveryIds")).To(HaveLen(1))
		Eventually(func() []webhookCall { return receiver.Calls("/slack") }).WithTimeout(10 * time.Second).
			Should(ContainElement(HaveField("Body", ContainSubstring("Only Slack"))))
		Consistently(func() int { return len(receiver.Calls("/discord")) }).WithTimeout(300 * time.Millisecond).Should(Equal(before))
	})

	It("fails a delivery for good when the service answers 410, and disables nothing", func() {
		gone := f.LiveFormOf(lf.Token, lf.OwnerEmail, nil)
		r := f.Patch(gone.Token, integrationsPath(gone.ID, "slack"), map[string]any{"enabled": true, "targetUrl": receiver.URL("/gone")})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		r = f.Post("", "/submit", map[string]any{"access_key": gone.AccessKey, "message": "Hello"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Array("notificationDeliveryIds")).To(HaveLen(1))
		id := r.Array("notificationDeliveryIds")[0].(string)
		Eventually(func() string { row, _ := db.Delivery(id); return row.Status }).WithTimeout(10 * time.Second).Should(Equal("failed"))
		row, _ := db.Delivery(id)
		Expect(row.Attempts).To(Equal(1), "a 410 is not retried")
		r = f.Get(gone.Token, integrationsPath(gone.ID))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Array("integrations")).To(ConsistOf(SatisfyAll(HaveKeyWithValue("type", "slack"), HaveKeyWithValue("enabled", true))),
			"only the webhook integration is disabled by a 410")
	})
})
