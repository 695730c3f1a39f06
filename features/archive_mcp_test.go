package features_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The archive over MCP (issue 37, item 8): list_submissions and
// get_submission answer what /v1 answers, under the same scope, and every
// call is in the form's access log.
var _ = Describe("Submissions archive over MCP", func() {
	It("lists and reads archived submissions as /v1 shows them, refuses a token without submissions:read, and records every call", func() {
		f := shared
		db := f.OpenDB()
		lf := archivedLiveForm(f)
		ws := lf.Form["workspaceId"].(string)
		ada, bob := UniqueEmail("mcp-read-ada"), UniqueEmail("mcp-read-bob")
		submit := func(email, topic string, files ...uploadPart) string {
			GinkgoHelper()
			id, _ := submitArchived(f, db, lf, multipartBody([]string{"email", email, "topic", topic}, files...))
			return id
		}
		ids := func(r ToolResult) (out []string) {
			GinkgoHelper()
			for _, s := range r.Array("submissions") {
				out = append(out, s.(map[string]any)["id"].(string))
			}
			return out
		}

		By("two submissions delivered and archived, the first with a file")
		pdf := []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
		first := submit(ada, "sales", uploadPart{Field: "cv", Filename: "ada-cv.pdf", ContentType: "application/pdf", Data: pdf})
		second := submit(bob, "support")
		agent := f.ConnectMCP(lf.Token)

		By("list_submissions: newest first, filtered, paged by its cursor")
		all := agent.MustCall("list_submissions", map[string]any{"formId": lf.ID})
		Expect(ids(all)).To(Equal([]string{second, first}))
		Expect(all.Out).NotTo(HaveKey("nextCursor"))
		Expect(ids(agent.MustCall("list_submissions", map[string]any{"formId": lf.ID, "email": ada}))).To(Equal([]string{first}))
		Expect(ids(agent.MustCall("list_submissions", map[string]any{"formId": lf.ID, "field": "topic", "value": "support",
			"status": "delivered"}))).To(Equal([]string{second}))
		page := agent.MustCall("list_submissions", map[string]any{"formId": lf.ID, "limit": 1})
		Expect(ids(page)).To(Equal([]string{second}))
		Expect(ids(agent.MustCall("list_submissions", map[string]any{"formId": lf.ID, "limit": 1, "cursor": page.Out["nextCursor"]}))).
			To(Equal([]string{first}))
		bad := agent.Call("list_submissions", map[string]any{"formId": lf.ID, "status": "lost"})
		Expect(bad).To(Equal(ToolResult{IsError: true, Text: "status must be one of pending, delivered, failed"}))

		By("get_submission: the submission with its deliveries; the posted file's url is the API's path")
		one := agent.MustCall("get_submission", map[string]any{"formId": lf.ID, "submissionId": first})
		submission := one.Object("submission")
		Expect(submission).To(HaveKeyWithValue("id", first))
		Expect(submission).To(HaveKeyWithValue("submitterEmail", ada))
		Expect(submission["fields"]).To(ContainElement(map[string]any{"name": "topic", "value": "sales"}))
		Expect(one.Array("deliveries")).To(ConsistOf(And(HaveKeyWithValue("kind", "notification"), HaveKeyWithValue("state", "succeeded"))))
		files := submission["attachments"].([]any)
		Expect(files).To(HaveLen(1))
		url := files[0].(map[string]any)["url"].(string)
		Expect(url).To(Equal("/v1/forms/" + lf.ID + "/submissions/" + first + "/attachments/0"))
		Expect(f.Get(lf.Token, url).Body).To(Equal(pdf))
		Expect(agent.Call("get_submission", map[string]any{"formId": lf.ID, "submissionId": "00000000-0000-4000-8000-000000000000"})).
			To(Equal(ToolResult{IsError: true, Text: "Not found."}))

		By("the access log: one row per call, by the session, with its request id; a searched address only as its hash")
		count := func(where string, args ...any) int {
			GinkgoHelper()
			return db.Int(`SELECT count(*) FROM submission_accesses WHERE form_id = $1 AND `+where, append([]any{lf.ID}, args...)...)
		}
		// Five lists and one read answered; the refused list and the unknown
		// submission read nothing; the download is the API's own read.
		Expect(count(`action = 'list'`)).To(Equal(5))
		Expect(count(`action = 'read' AND submission_id = $2 AND filters = '{}'`, first)).To(Equal(1))
		Expect(count(`action = 'read' AND filters->>'attachment' = '0'`)).To(Equal(1))
		Expect(count(`actor_type <> 'session' OR request_id = '' OR count IS NULL`)).To(BeZero())
		Expect(db.Int(`SELECT count(DISTINCT request_id) FROM submission_accesses WHERE form_id = $1`, lf.ID)).To(Equal(7))
		Expect(count(`action = 'list' AND filters->>'email' ~ '^[0-9a-f]{32}$' AND count = 1`)).To(Equal(1))
		Expect(count(`action = 'list' AND filters->>'field' = 'topic' AND filters->>'status' = 'delivered' AND filters->>'value' ~ '^[0-9a-f]{32}$'`)).
			To(Equal(1))
		Expect(db.TablesHolding(ada)).To(BeEmpty(), "the address searched for is nowhere in the clear")

		By("the same answers as /v1, shape for shape")
		api := f.Get(lf.Token, "/v1/forms/"+lf.ID+"/submissions")
		Expect(api.Status).To(Equal(http.StatusOK), "%s", api)
		Expect(agent.MustCall("list_submissions", map[string]any{"formId": lf.ID}).Out).To(Equal(api.JSON))
		api = f.Get(lf.Token, "/v1/forms/"+lf.ID+"/submissions/"+first)
		Expect(api.Status).To(Equal(http.StatusOK), "%s", api)
		Expect(agent.MustCall("get_submission", map[string]any{"formId": lf.ID, "submissionId": first}).Out).To(Equal(api.JSON))

		By("a token without submissions:read refused with the API's message; one with it reads, as a token")
		without := f.ConnectMCP(f.TokenWith(lf.Token, ws, scopesBut("submissions:read")...).Secret)
		refusal := "This workspace API token lacks the submissions:read scope, which this route needs. Use a token with submissions:read, or a session."
		Expect(without.Call("list_submissions", map[string]any{"formId": lf.ID})).To(Equal(ToolResult{IsError: true, Text: refusal}))
		Expect(without.Call("get_submission", map[string]any{"formId": lf.ID, "submissionId": first})).
			To(Equal(ToolResult{IsError: true, Text: refusal}))
		reader := f.ConnectMCP(f.TokenWith(lf.Token, ws, "submissions:read").Secret)
		Expect(ids(reader.MustCall("list_submissions", map[string]any{"formId": lf.ID, "limit": 1}))).To(Equal([]string{second}))
		Expect(count(`actor_type = 'token'`)).To(Equal(1), "the refused calls are not recorded, the token's read is")

		By("another account's form: not found")
		other, _ := f.RegisteredVerifiedUser()
		Expect(f.ConnectMCP(other).Call("list_submissions", map[string]any{"formId": lf.ID})).To(Equal(ToolResult{IsError: true, Text: "Not found."}))
	})
})
