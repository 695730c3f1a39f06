package features_test

import (
	"encoding/json"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("A form's Telegram and Google Sheets integrations", Ordered, func() {
	var f *Formd
	var services *fakeServices
	var lf LiveForm

	BeforeAll(func() {
		var credentials string
		services, credentials = startFakeServices()
		// No FORMD_WEBHOOK_ALLOW_PRIVATE: the operator's own service
		// addresses pass the SSRF guard, a user's loopback URL does not.
		f = StartFormd(services.Env(credentials)...)
		lf = f.LiveForm(map[string]any{"name": "Leads *EU*"})
		connectTelegram(f, services, lf.Token, lf.ID, -1001234567890)
		proveSheet(f, services, lf.Token, lf.ID, map[string]any{"enabled": true,
			"spreadsheetId": "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms", "sheetName": "Leads 2026"})
	})

	It("sends each accepted submission to the chat and appends it to the sheet", func() {
		r := f.Post("", "/submit", orderedJSON("access_key", lf.AccessKey, "name", "Ada <b>", "message", "=SUM(A1:A9) *hi*",
			"email", "ada@example.com", "botcheck", "", "subject", "Hi", "g-recaptcha-response", "captcha-token"), fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		ids := r.Array("notificationDeliveryIds")
		Expect(ids).To(HaveLen(2), "one delivery each for Telegram and Sheets")
		Expect(r.Array("webhookDeliveryIds")).To(BeEmpty())

		Eventually(services.Telegram).WithTimeout(10 * time.Second).Should(HaveLen(1))
		Eventually(services.Rows).WithTimeout(10 * time.Second).Should(HaveLen(1))
		Expect(services.Refused()).To(BeEmpty())

		By("sending Telegram's sendMessage as plain text, without link previews")
		Expect(services.Telegram()[0].Body).To(Equal(map[string]any{
			"chat_id":              "-1001234567890",
			"text":                 "New submission to Leads *EU*\nname: Ada <b>\nmessage: =SUM(A1:A9) *hi*\nemail: ada@example.com",
			"link_preview_options": map[string]any{"is_disabled": true},
		}))

		By("appending one RAW row: the time, then the values by field name")
		row := services.Rows()[0]
		Expect(row.Path).To(Equal("/v4/spreadsheets/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/values/'Leads 2026':append"))
		Expect(row.Query.Get("valueInputOption")).To(Equal("RAW"), "a submitted formula stays text")
		values := row.Body["values"].([]any)[0].([]any)
		Expect(values).To(HaveLen(4))
		at, err := time.Parse(time.RFC3339, values[0].(string))
		Expect(err).NotTo(HaveOccurred())
		Expect(at).To(BeTemporally("~", time.Now(), time.Minute))
		Expect(values[1:]).To(Equal([]any{"ada@example.com", "=SUM(A1:A9) *hi*", "Ada <b>"}))

		By("never carrying routing fields, captcha tokens, the honeypot or the access key")
		for _, body := range []map[string]any{services.Telegram()[0].Body, row.Body} {
			raw, _ := json.Marshal(body)
			for _, s := range []string{lf.AccessKey, "captcha-token", "botcheck", "subject"} {
				Expect(string(raw)).NotTo(ContainSubstring(s))
			}
		}

		By("showing both in the delivery log, succeeded")
		for i, kind := range []string{"telegram", "google_sheets"} {
			id := ids[i].(string)
			Eventually(func() any { return deliveryState(f, lf.Token, id) }).WithTimeout(5 * time.Second).Should(Equal("succeeded"))
			d := f.Get(lf.Token, "/v1/deliveries/"+id).Object("delivery")
			Expect(d).To(HaveKeyWithValue("kind", kind))
		}
	})

	It("reuses the service account's token until it expires", func() {
		before := len(services.Rows())
		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Second"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Eventually(services.Rows).WithTimeout(10 * time.Second).Should(HaveLen(before + 1))
		services.mu.Lock()
		defer services.mu.Unlock()
		Expect(services.tokens).To(Equal(1))
	})

	It("delivers each integration's test", func() {
		telegramBefore, rowsBefore := len(services.Telegram()), len(services.Rows())
		for _, typ := range []string{"telegram", "google_sheets"} {
			r := f.Post(lf.Token, integrationsPath(lf.ID, typ)+"/test", nil)
			Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
			Expect(r.Object("delivery")).To(HaveKeyWithValue("kind", typ))
		}
		Eventually(services.Telegram).WithTimeout(10 * time.Second).Should(HaveLen(telegramBefore + 1))
		Eventually(services.Rows).WithTimeout(10 * time.Second).Should(HaveLen(rowsBefore + 1))
		Expect(services.Telegram()[telegramBefore].Body["text"]).To(Equal("New submission to Leads *EU*\nmessage: This is a test from formd"))
		values := services.Rows()[rowsBefore].Body["values"].([]any)[0].([]any)
		Expect(values[1:]).To(Equal([]any{"This is a test from formd"}))
	})

	It("fails a message the Bot API refuses for good, with its reason and never the bot token", func() {
		other := f.LiveFormOf(lf.Token, lf.OwnerEmail, nil)
		connectTelegram(f, services, other.Token, other.ID, -1009999999)
		services.LeaveChat(-1009999999) // the bot was removed from the chat since
		r := f.Post("", "/submit", map[string]any{"access_key": other.AccessKey, "message": "Hello"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Array("notificationDeliveryIds")).To(HaveLen(1))
		id := r.Array("notificationDeliveryIds")[0].(string)
		Eventually(func() any { return deliveryState(f, other.Token, id) }).WithTimeout(10 * time.Second).Should(Equal("failed"))
		d := f.Get(other.Token, "/v1/deliveries/"+id)
		Expect(d.Object("delivery")).To(HaveKeyWithValue("attempts", BeNumerically("==", 1)), "a 400 is not retried")
		Expect(string(d.Body)).To(ContainSubstring("telegram answered 400: Bad Request: chat not found"))
		Expect(string(d.Body)).NotTo(ContainSubstring(telegramBotToken))
	})
})

var _ = Describe("Telegram and Google Sheets on a server without their configuration", func() {
	It("refuses to enable them with a 400 that says what the operator must set", func() {
		f := StartFormd()
		lf := f.LiveForm(nil)
		for typ, body := range map[string]map[string]any{
			"telegram":      {"enabled": true},
			"google_sheets": {"enabled": true, "spreadsheetId": "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms", "sheetName": "A"},
		} {
			setting := map[string]string{"telegram": "FORMD_TELEGRAM_BOT_TOKEN", "google_sheets": "FORMD_GOOGLE_CREDENTIALS_FILE"}[typ]
			ExpectError(f.Patch(lf.Token, integrationsPath(lf.ID, typ), body), http.StatusBadRequest, "not available on this server", setting)
		}
		Expect(f.Get(lf.Token, integrationsPath(lf.ID)).Array("integrations")).To(BeEmpty(), "nothing was configured")
	})
})
