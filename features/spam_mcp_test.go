package features_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The Spam folder over MCP: list_spam and get_spam answer what /v1
// answers, and review_spam carries out the three reviews of its routes,
// under the same scopes.
var _ = Describe("Spam folder over MCP", func() {
	It("lists, reads and reviews held submissions as /v1 does, and refuses a token without the scope", func() {
		f := StartFormd(append(testRspamdController(), "FORMD_RSPAMD_URL="+testRspamdURL())...)
		db := f.OpenDB()
		lf := f.LiveForm(spamPolicy("hold", nil))
		ws := lf.Form["workspaceId"].(string)
		released, answer := holdGTUBE(f, lf)
		confirmed, _ := holdGTUBE(f, lf)
		deleted, _ := holdGTUBE(f, lf)
		agent := f.ConnectMCP(lf.Token)
		ids := func(r ToolResult) (out []string) {
			GinkgoHelper()
			for _, s := range r.Array("submissions") {
				out = append(out, s.(map[string]any)["id"].(string))
			}
			return out
		}

		By("list_spam and get_spam: the API's answers, shape for shape, paged by the cursor")
		api := f.Get(lf.Token, spamFolder(lf.ID))
		Expect(api.Status).To(Equal(http.StatusOK), "%s", api)
		all := agent.MustCall("list_spam", map[string]any{"formId": lf.ID})
		Expect(all.Out).To(Equal(api.JSON))
		Expect(all.Out).To(HaveKeyWithValue("total", 3.0))
		Expect(ids(all)).To(ConsistOf(released, confirmed, deleted))
		page := agent.MustCall("list_spam", map[string]any{"formId": lf.ID, "limit": 2})
		Expect(page.Out).To(HaveKey("nextCursor"))
		rest := agent.MustCall("list_spam", map[string]any{"formId": lf.ID, "limit": 2, "cursor": page.Out["nextCursor"]})
		Expect(append(ids(page), ids(rest)...)).To(Equal(ids(all)))
		api = f.Get(lf.Token, spamFolder(lf.ID)+"/"+released)
		Expect(api.Status).To(Equal(http.StatusOK), "%s", api)
		Expect(agent.MustCall("get_spam", map[string]any{"formId": lf.ID, "submissionId": released}).Out).To(Equal(api.JSON))
		// Seven lists (three by holdGTUBE, one by /v1, three by MCP) and two
		// reads, one by each.
		Expect(db.Int(`SELECT count(*) FROM submission_accesses WHERE form_id = $1 AND filters->>'folder' = 'spam' AND actor_type = 'session'`,
			lf.ID)).To(Equal(9), "every read of the folder, by /v1 or MCP, is in the access log")

		By("tokens without submissions:read or submissions:delete refused with the API's message, leaving the folder as it was")
		noRead := f.ConnectMCP(f.TokenWith(lf.Token, ws, scopesBut("submissions:read")...).Secret)
		Expect(noRead.Call("list_spam", map[string]any{"formId": lf.ID})).To(Equal(ToolResult{IsError: true,
			Text: "This workspace API token lacks the submissions:read scope, which this route needs. Use a token with submissions:read, or a session."}))
		noDelete := f.ConnectMCP(f.TokenWith(lf.Token, ws, scopesBut("submissions:delete")...).Secret)
		Expect(noDelete.Call("review_spam", map[string]any{"formId": lf.ID, "submissionId": deleted, "verdict": "delete"})).
			To(Equal(ToolResult{IsError: true,
				Text: "This workspace API token lacks the submissions:delete scope, which this route needs. Use a token with submissions:delete, or a session."}))
		Expect(agent.Call("review_spam", map[string]any{"formId": lf.ID, "submissionId": deleted, "verdict": "ham"})).
			To(Equal(ToolResult{IsError: true, Text: "verdict must be one of not_spam, spam, delete"}))
		Expect(agent.MustCall("list_spam", map[string]any{"formId": lf.ID}).Out).To(HaveKeyWithValue("total", 3.0))

		By("review_spam not_spam: released, its delivery the one the submitter was given, and the mail goes out")
		rel := agent.MustCall("review_spam", map[string]any{"formId": lf.ID, "submissionId": released, "verdict": "not_spam"})
		Expect(rel.Out).To(HaveKeyWithValue("verdict", "not_spam"))
		Expect(rel.Out).To(HaveKeyWithValue("learned", true))
		Expect(rel.Out).To(HaveKeyWithValue("deliveryIds", ContainElement(answer.JSON["deliveryId"])))
		Expect(f.Mail.WaitForMail(lf.Recipient).Text).To(ContainSubstring(gtube))

		By("review_spam spam and delete: shredded, nothing delivered")
		Expect(agent.MustCall("review_spam", map[string]any{"formId": lf.ID, "submissionId": confirmed, "verdict": "spam"}).Out).
			To(And(HaveKeyWithValue("verdict", "spam"), HaveKeyWithValue("learned", true)))
		Expect(agent.MustCall("review_spam", map[string]any{"formId": lf.ID, "submissionId": deleted, "verdict": "delete"}).Out).
			To(And(HaveKeyWithValue("verdict", "deleted"), HaveKeyWithValue("learned", false)))
		for _, id := range []string{confirmed, deleted} {
			Expect(db.Int(`SELECT count(*) FROM submission_payloads WHERE submission_id = $1`, id)).To(BeZero())
			Expect(db.Int(`SELECT count(*) FROM deliveries WHERE submission_id = $1`, id)).To(BeZero())
		}

		By("the folder is empty, a second review finds nothing, and each review is in the form's history")
		Expect(agent.MustCall("list_spam", map[string]any{"formId": lf.ID}).Out).To(HaveKeyWithValue("total", 0.0))
		Expect(agent.Call("review_spam", map[string]any{"formId": lf.ID, "submissionId": confirmed, "verdict": "spam"})).
			To(Equal(ToolResult{IsError: true, Text: "Not found."}))
		Expect(agent.Call("get_spam", map[string]any{"formId": lf.ID, "submissionId": released})).
			To(Equal(ToolResult{IsError: true, Text: "Not found."}))
		reviewed := 0
		for _, ev := range f.Events(lf.Token, lf.ID) {
			if ev["type"] == "form.spam_reviewed.v1" {
				reviewed++
			}
		}
		Expect(reviewed).To(Equal(3))
	})
})
