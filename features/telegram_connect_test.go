package features_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// sentTo lists the sendMessage calls the fake bot made to chatID.
func sentTo(services *fakeServices, chatID int64) []serviceCall {
	var out []serviceCall
	for _, c := range services.Telegram() {
		if c.Body["chat_id"] == fmt.Sprint(chatID) {
			out = append(out, c)
		}
	}
	return out
}

var _ = Describe("Connecting a Telegram chat to a form", Ordered, func() {
	var f *Formd
	var services *fakeServices

	BeforeAll(func() {
		var credentials string
		services, credentials = startFakeServices()
		f = StartFormd(services.Env(credentials)...)
	})

	It("connects the chat a connect code is sent from, records it in the audit trail, and posts submissions there", func() {
		lf := f.LiveForm(map[string]any{"name": "Support"})
		const chat = int64(-1005550001)

		By("enabling Telegram, which answers a one-time code, its command and the bot's links, and connects nothing yet")
		r := f.Patch(lf.Token, integrationsPath(lf.ID, "telegram"), map[string]any{"enabled": true})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Header.Get("Cache-Control")).To(Equal("no-store"))
		in := r.Object("integration")
		Expect(in).To(HaveKeyWithValue("chatId", ""))
		connect := in["connect"].(map[string]any)
		code := connect["code"].(string)
		Expect(connect).To(HaveKeyWithValue("command", "/start "+code))
		Expect(connect).To(HaveKeyWithValue("url", "https://t.me/"+telegramBotUsername+"?start="+code))
		Expect(connect).To(HaveKeyWithValue("groupUrl", "https://t.me/"+telegramBotUsername+"?startgroup="+code))
		expires, err := time.Parse(time.RFC3339, connect["expiresAt"].(string))
		Expect(err).NotTo(HaveOccurred())
		Expect(expires).To(BeTemporally("~", time.Now().Add(time.Hour), time.Minute))
		Expect(f.Get(lf.Token, integrationsPath(lf.ID)).Body).NotTo(ContainSubstring(code), "the code is shown once, kept hashed")

		By("sending no submission to Telegram while no chat is connected")
		s := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Before"}, fromExampleCom())
		Expect(s.Status).To(Equal(http.StatusOK), "%s", s)
		Expect(s.Array("notificationDeliveryIds")).To(BeEmpty())

		By("connecting the chat the code came from, through getUpdates")
		services.SendFromChat(chat, "/start@"+telegramBotUsername+" "+code)
		Eventually(func() any { return telegramChatOf(f, lf.Token, lf.ID) }).WithTimeout(15 * time.Second).Should(Equal(strconv.FormatInt(chat, 10)))
		events := f.Events(lf.Token, lf.ID)
		last := events[len(events)-1]
		Expect(last).To(HaveKeyWithValue("type", "form.telegram_chat_connected.v1"))
		Expect(last["actor"]).To(HaveKeyWithValue("type", "telegram"))
		Expect(last["changes"]).To(ConsistOf(change("integrations.telegram.chatId", nil, strconv.FormatInt(chat, 10))))

		By("posting the next submission to that chat")
		s = f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "After"}, fromExampleCom())
		Expect(s.Status).To(Equal(http.StatusOK), "%s", s)
		Expect(s.Array("notificationDeliveryIds")).To(HaveLen(1))
		Eventually(func() []serviceCall { return sentTo(services, chat) }).WithTimeout(10 * time.Second).
			Should(ConsistOf(HaveField("Body", HaveKeyWithValue("text", "New submission to Support\nmessage: After"))))

		By("refusing the same code a second time: a code connects one chat once")
		other := f.LiveFormOf(lf.Token, lf.OwnerEmail, nil)
		r = f.Patch(other.Token, integrationsPath(other.ID, "telegram"), map[string]any{"enabled": true})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		services.SendFromChat(-1005550002, "/start "+code)
		Consistently(func() any { return telegramChatOf(f, other.Token, other.ID) }).WithTimeout(3 * time.Second).Should(Equal(""))
		Expect(telegramChatOf(f, lf.Token, lf.ID)).To(Equal(strconv.FormatInt(chat, 10)))
	})

	It("refuses another tenant's chat id typed in, and posts nowhere until a code comes from a chat", func() {
		victim := f.LiveForm(map[string]any{"name": "Victim Co"})
		const victimChat = int64(-1005550100)
		connectTelegram(f, services, victim.Token, victim.ID, victimChat)
		before := len(services.Telegram())

		attacker := f.LiveForm(map[string]any{"name": "Spam"})
		for _, body := range []map[string]any{
			{"enabled": true, "chatId": strconv.FormatInt(victimChat, 10)},
			{"chatId": strconv.FormatInt(victimChat, 10)},
			{"enabled": true, "chatId": "@victim_channel"},
		} {
			ExpectError(f.Patch(attacker.Token, integrationsPath(attacker.ID, "telegram"), body), http.StatusBadRequest, "chatId", "cannot be set")
		}
		r := f.Patch(attacker.Token, integrationsPath(attacker.ID, "telegram"), map[string]any{"enabled": true})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Object("integration")).To(HaveKeyWithValue("chatId", ""))

		By("naming the chat through the MCP server or the dashboard sets nothing either")
		mcp := f.ConnectMCP(attacker.Token).Call("configure_integration", map[string]any{"formId": attacker.ID, "type": "telegram",
			"enabled": true, "chatId": strconv.FormatInt(victimChat, 10)})
		if !mcp.IsError {
			Expect(mcp.Object("integration")).To(HaveKeyWithValue("chatId", ""), "%s", mcp.Text)
		}
		dash := newDashboardClient(f, attacker.Token)
		page := "/dashboard/forms/" + attacker.ID + "/integrations"
		resp := dash.post(page+"/telegram", url.Values{"csrf_token": {dash.csrfOf(page)}, "enabled": {"on"},
			"chatId": {strconv.FormatInt(victimChat, 10)}})
		Expect(resp.StatusCode).To(BeNumerically("<", 500))
		Expect(telegramChatOf(f, attacker.Token, attacker.ID)).To(Equal(""))

		By("testing and submitting to the attacker's form, which has no chat")
		ExpectError(f.Post(attacker.Token, integrationsPath(attacker.ID, "telegram")+"/test", nil), http.StatusBadRequest)
		s := f.Post("", "/submit", map[string]any{"access_key": attacker.AccessKey, "message": "Buy now"}, fromExampleCom())
		Expect(s.Status).To(Equal(http.StatusOK), "%s", s)
		Expect(s.Array("notificationDeliveryIds")).To(BeEmpty())
		Consistently(func() int { return len(services.Telegram()) }).WithTimeout(2*time.Second).Should(Equal(before),
			"the bot posted nothing anywhere")
	})

	It("hands its connect code to a token that may write forms but not read them, through the API and the MCP server", func() {
		lf := f.LiveForm(map[string]any{"name": "Written, not read"})
		writer := f.TokenWith(lf.Token, lf.Form["workspaceId"].(string), "forms:write")

		r := f.Patch(writer.Secret, integrationsPath(lf.ID, "telegram"), map[string]any{"enabled": true})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(keysOf(r.Object("integration"))).To(Equal([]string{"connect", "type", "updatedAt"}), "%s", r)

		out := f.ConnectMCP(writer.Secret).MustCall("configure_integration", map[string]any{"formId": lf.ID, "type": "telegram", "enabled": true})
		Expect(out.Out).NotTo(HaveKey("integration"))
		Expect(keysOf(out.Object("saved"))).To(Equal([]string{"connect", "type", "updatedAt"}), "%s", out.Text)
		connect := out.Object("saved")["connect"].(map[string]any)
		Expect(connect).To(HaveKeyWithValue("command", "/start "+connect["code"].(string)))
	})

	It("takes at most 5 integration tests per form in 10 minutes, then answers 429 with Retry-After", func() {
		lf := f.LiveForm(nil)
		const chat = int64(-1005550200)
		connectTelegram(f, services, lf.Token, lf.ID, chat)
		created, limited := 0, 0
		for range 20 {
			r := f.Post(lf.Token, integrationsPath(lf.ID, "telegram")+"/test", nil)
			switch r.Status {
			case http.StatusCreated:
				created++
			case http.StatusTooManyRequests:
				limited++
				ExpectError(r, http.StatusTooManyRequests, "Too many integration tests")
				seconds, err := strconv.Atoi(r.Header.Get("Retry-After"))
				Expect(err).NotTo(HaveOccurred(), "Retry-After %q", r.Header.Get("Retry-After"))
				Expect(seconds).To(BeNumerically(">", 500))
				Expect(seconds).To(BeNumerically("<=", 600))
			default:
				Fail(fmt.Sprintf("unexpected answer %s", r))
			}
		}
		Expect([]int{created, limited}).To(Equal([]int{5, 15}))
		Eventually(func() int { return len(sentTo(services, chat)) }).WithTimeout(10 * time.Second).Should(Equal(5))
		Consistently(func() int { return len(sentTo(services, chat)) }).WithTimeout(time.Second).Should(Equal(5))

		By("counting the dashboard's and the MCP server's tests against the same limit")
		dash := newDashboardClient(f, lf.Token)
		page := "/dashboard/forms/" + lf.ID + "/integrations"
		resp := dash.post(page+"/telegram/test", url.Values{"csrf_token": {dash.csrfOf(page)}})
		Expect(resp.StatusCode).To(Equal(http.StatusTooManyRequests))
		Expect(resp.Header.Get("Retry-After")).To(MatchRegexp(`^[0-9]+$`))
		mcp := f.ConnectMCP(lf.Token).Call("test_integration", map[string]any{"formId": lf.ID, "type": "telegram"})
		Expect(mcp.IsError).To(BeTrue(), mcp.Text)
		Expect(mcp.Text).To(ContainSubstring("Too many integration tests"))
		Consistently(func() int { return len(sentTo(services, chat)) }).WithTimeout(time.Second).Should(Equal(5))

		By("counting per form: another form of the same account still gets its tests")
		other := f.LiveFormOf(lf.Token, lf.OwnerEmail, nil)
		connectTelegram(f, services, other.Token, other.ID, chat)
		Expect(f.Post(other.Token, integrationsPath(other.ID, "telegram")+"/test", nil).Status).To(Equal(http.StatusCreated))
	})
})

var _ = Describe("Connecting Telegram chats with several formd processes on one database", func() {
	It("has one process poll the bot at a time, and connects a chat whichever process issued the code", func() {
		services, credentials := startFakeServices()
		f := StartFormd(services.Env(credentials)...)
		twin := f.StartTwin()
		lf := f.LiveForm(nil)
		r := twin.Patch(lf.Token, integrationsPath(lf.ID, "telegram"), map[string]any{"enabled": true})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		code := r.Object("integration")["connect"].(map[string]any)["code"].(string)
		services.SendFromChat(-1005550300, "/start "+code)
		Eventually(func() any { return telegramChatOf(f, lf.Token, lf.ID) }).WithTimeout(15 * time.Second).Should(Equal("-1005550300"))
		Consistently(services.MostConcurrentPolls).WithTimeout(3 * time.Second).Should(Equal(1))
	})
})

var _ = Describe("Proving a Google spreadsheet before rows are appended to it", func() {
	It("appends no row until the form's proof code is in the spreadsheet's formd!A1, and says the same whatever kept it unproven", func() {
		services, credentials := startFakeServices()
		f := StartFormd(services.Env(credentials)...)
		lf := f.LiveForm(nil)
		const victimSheet = "1VictimSpreadsheetSharedWithFormdXYZ"
		services.SetCell(victimSheet, "formd!A1", "") // another tenant's sheet, shared with the service account

		By("naming a spreadsheet answers a proof code and leaves it unproven, whether or not the service account can read it")
		unshared := f.Patch(lf.Token, integrationsPath(lf.ID, "google_sheets"), map[string]any{"enabled": true,
			"spreadsheetId": "1NeverSharedWithTheServiceAccount", "sheetName": "Leads"})
		Expect(unshared.Status).To(Equal(http.StatusOK), "%s", unshared)
		shared := f.Patch(lf.Token, integrationsPath(lf.ID, "google_sheets"), map[string]any{"spreadsheetId": victimSheet})
		Expect(shared.Status).To(Equal(http.StatusOK), "%s", shared)
		for _, r := range []*Response{unshared, shared} {
			in := r.Object("integration")
			Expect(in).To(HaveKeyWithValue("sheetProven", false))
			Expect(in["proof"]).To(HaveKeyWithValue("range", "formd!A1"))
			Expect(in["proof"]).To(HaveKeyWithValue("code", HavePrefix("formd-proof-")))
		}
		Expect(shared.Object("integration")["proof"]).NotTo(Equal(unshared.Object("integration")["proof"]), "a code per spreadsheet")

		By("submitting and testing append nothing")
		s := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hello"}, fromExampleCom())
		Expect(s.Status).To(Equal(http.StatusOK), "%s", s)
		Expect(s.Array("notificationDeliveryIds")).To(BeEmpty())
		ExpectError(f.Post(lf.Token, integrationsPath(lf.ID, "google_sheets")+"/test", nil), http.StatusBadRequest, "not proven")
		Consistently(services.Rows).WithTimeout(2 * time.Second).Should(BeEmpty())

		By("another form's code in the cell proves nothing for this form")
		other := f.LiveFormOf(lf.Token, lf.OwnerEmail, nil)
		r := f.Patch(other.Token, integrationsPath(other.ID, "google_sheets"), map[string]any{"enabled": true,
			"spreadsheetId": victimSheet, "sheetName": "Leads"})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		services.SetCell(victimSheet, "formd!A1", r.Object("integration")["proof"].(map[string]any)["code"].(string))
		r = f.Patch(lf.Token, integrationsPath(lf.ID, "google_sheets"), map[string]any{})
		Expect(r.Object("integration")).To(HaveKeyWithValue("sheetProven", false))

		By("with this form's code in the cell, the next save proves it, the audit trail says so, and rows follow")
		services.SetCell(victimSheet, "formd!A1", shared.Object("integration")["proof"].(map[string]any)["code"].(string))
		r = f.Patch(lf.Token, integrationsPath(lf.ID, "google_sheets"), map[string]any{})
		Expect(r.Object("integration")).To(HaveKeyWithValue("sheetProven", true), "%s", r)
		events := f.Events(lf.Token, lf.ID)
		Expect(events[len(events)-1]).To(HaveKeyWithValue("type", "form.google_sheet_proven.v1"))
		s = f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Now"}, fromExampleCom())
		Expect(s.Status).To(Equal(http.StatusOK), "%s", s)
		Expect(s.Array("notificationDeliveryIds")).To(HaveLen(1))
		Eventually(services.Rows).WithTimeout(10 * time.Second).Should(ConsistOf(HaveField("Path", ContainSubstring(victimSheet))))

		By("naming another spreadsheet needs a new proof")
		r = f.Patch(lf.Token, integrationsPath(lf.ID, "google_sheets"), map[string]any{"spreadsheetId": "1AnotherSpreadsheetOfTheOwner"})
		Expect(r.Object("integration")).To(HaveKeyWithValue("sheetProven", false))
	})
})
