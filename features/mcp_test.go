package features_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The MCP server (issue 14, items 3 and 4): an agent connects with the
// official SDK's client and the same bearer credentials as /v1, and sets a
// form up through tools alone, up to where a person must follow a link.

// mcpTools are the tools formd offers, sorted.
var mcpTools = []string{"clear_test_inbox", "configure_integration", "create_form", "dry_run_submission", "get_form_history",
	"get_form_version", "get_recipient_verification", "get_spam", "get_submission", "list_deliveries", "list_forms", "list_spam",
	"list_submissions", "read_test_inbox", "resend_recipient_verification", "restore_form_version", "retry_delivery", "review_spam",
	"test_integration", "update_form"}

// bearerTransport adds a credential to every request, as an agent's MCP
// client configured with a token does.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// MCP is an agent's connection to formd's MCP server.
type MCP struct{ session *sdk.ClientSession }

// ConnectMCP connects the SDK's client to f's /mcp with token; the
// connection is closed when the spec ends.
func (f *Formd) ConnectMCP(token string) *MCP {
	GinkgoHelper()
	client := sdk.NewClient(&sdk.Implementation{Name: "formd-features", Version: "1"}, nil)
	session, err := client.Connect(mcpContext(), &sdk.StreamableClientTransport{Endpoint: f.URL + "/mcp",
		HTTPClient: &http.Client{Timeout: 15 * time.Second, Transport: bearerTransport{token}}, MaxRetries: -1}, nil)
	Expect(err).NotTo(HaveOccurred(), "connect to %s/mcp", f.URL)
	DeferCleanup(session.Close)
	return &MCP{session: session}
}

// mcpContext bounds one exchange with the MCP server.
func mcpContext() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	DeferCleanup(cancel)
	return ctx
}

// Tools lists the names of the server's tools, sorted.
func (m *MCP) Tools() []string {
	GinkgoHelper()
	res, err := m.session.ListTools(mcpContext(), nil)
	Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, t := range res.Tools {
		Expect(t.Description).NotTo(BeEmpty(), t.Name)
		Expect(t.InputSchema).NotTo(BeNil(), t.Name)
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names
}

// ToolResult is what a tool call answered: its structured output, or the
// text of a tool error.
type ToolResult struct {
	IsError bool
	Text    string
	Out     map[string]any
}

// Object is the output's object at key, failing the spec when there is none.
func (r ToolResult) Object(key string) map[string]any {
	GinkgoHelper()
	v, ok := r.Out[key].(map[string]any)
	Expect(ok).To(BeTrue(), "an object %q in %s", key, r.Text)
	return v
}

// Array is the output's array at key.
func (r ToolResult) Array(key string) []any {
	GinkgoHelper()
	v, ok := r.Out[key].([]any)
	Expect(ok).To(BeTrue(), "an array %q in %s", key, r.Text)
	return v
}

// Call calls a tool; a protocol error fails the spec (a tool error does not).
func (m *MCP) Call(tool string, args map[string]any) ToolResult {
	GinkgoHelper()
	res, err := m.session.CallTool(mcpContext(), &sdk.CallToolParams{Name: tool, Arguments: args})
	Expect(err).NotTo(HaveOccurred(), "call %s", tool)
	out := ToolResult{IsError: res.IsError}
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			out.Text += t.Text
		}
	}
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(raw, &out.Out)).To(Succeed())
	}
	return out
}

// MustCall calls a tool that must succeed and returns its output.
func (m *MCP) MustCall(tool string, args map[string]any) ToolResult {
	GinkgoHelper()
	r := m.Call(tool, args)
	Expect(r.IsError).To(BeFalse(), "%s answered a tool error: %s", tool, r.Text)
	return r
}

// gateVerdictsOf lists a dry run's gates as "gate=outcome", in order.
func gateVerdictsOf(r ToolResult) []string {
	GinkgoHelper()
	var out []string
	for _, g := range r.Array("gates") {
		gate := g.(map[string]any)
		out = append(out, gate["gate"].(string)+"="+gate["outcome"].(string))
	}
	return out
}

var _ = Describe("The MCP server", Ordered, func() {
	var f *Formd
	var receiver *webhookReceiver
	var session, owner, recipient, formID string

	BeforeAll(func() {
		receiver = startWebhookReceiver()
		f = StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		session, owner = f.RegisteredVerifiedUser()
		recipient = UniqueEmail("mcp-inbox")
	})

	It("lists its tools to an agent's client holding a session", func() {
		Expect(f.ConnectMCP(session).Tools()).To(Equal(mcpTools))
	})

	It("sets a form up through tools alone, up to the link a person must follow", func() {
		agent := f.ConnectMCP(session)

		By("creating the form, whose access key is shown this once")
		created := agent.MustCall("create_form", map[string]any{"name": "MCP contact", "recipientEmail": recipient,
			"allowedDomains": []string{"example.com"}}).Object("form")
		formID = created["id"].(string)
		Expect(formID).To(MatchRegexp(uuidPattern))
		Expect(created).To(HaveKeyWithValue("accessKey", Not(BeEmpty())))
		Expect(created).To(HaveKeyWithValue("recipientVerified", false))
		Expect(created["accessKey"]).To(HavePrefix(created["accessKeyPrefix"].(string)))
		listed := agent.MustCall("list_forms", nil).Array("forms")
		Expect(listed).To(ContainElement(SatisfyAll(HaveKeyWithValue("id", formID), Not(HaveKey("accessKey")))))

		By("changing its settings, as PATCH /v1/forms/{formId} does")
		updated := agent.MustCall("update_form", map[string]any{"formId": formID, "subjectDefault": "New lead from MCP",
			"validation": map[string]any{"fields": []any{map[string]any{"field": "email", "required": true, "type": "email"}}}}).Object("form")
		Expect(updated).To(HaveKeyWithValue("subjectDefault", "New lead from MCP"))
		Expect(updated).To(HaveKeyWithValue("version", BeNumerically("==", 2)))
		Expect(f.FormByID(session, formID)).To(HaveKeyWithValue("subjectDefault", "New lead from MCP"), "the API sees the change")

		By("connecting a webhook to a receiver and testing it")
		hook := agent.MustCall("configure_integration", map[string]any{"formId": formID, "type": "webhook", "enabled": true,
			"targetUrl": receiver.URL("/mcp-hook")}).Object("integration")
		secret := expectStandardWebhooksSecret(hook["secret"])
		Expect(hook).To(HaveKeyWithValue("enabled", true))
		test := agent.MustCall("test_integration", map[string]any{"formId": formID, "type": "webhook"}).Object("delivery")
		Expect(test).To(HaveKeyWithValue("kind", "webhook"))
		Expect(test).To(HaveKeyWithValue("state", "queued"))
		Eventually(func() []webhookCall { return receiver.Calls("/mcp-hook") }).WithTimeout(10 * time.Second).Should(HaveLen(1))
		call := receiver.Calls("/mcp-hook")[0]
		Expect(call.Header.Get("webhook-id")).To(Equal(test["id"]))
		Expect(verifyStandardWebhook(secret, call)).To(BeTrue(), "signed with the secret configure_integration showed")
		Expect(call.JSON()).To(HaveKeyWithValue("test", true))

		By("reading the recipient's verification: pending, on a person")
		v := agent.MustCall("get_recipient_verification", map[string]any{"formId": formID}).Object("verification")
		Expect(v).To(HaveKeyWithValue("status", "pending"))
		Expect(v).To(HaveKeyWithValue("recipientEmail", recipient))
		Expect(v["nextStep"]).To(ContainSubstring("A person must act"))
		first := v["deliveryId"]

		By("resending the verification email")
		resent := agent.MustCall("resend_recipient_verification", map[string]any{"formId": formID}).Object("verification")
		Expect(resent).To(HaveKeyWithValue("status", "pending"))
		Expect(resent).To(HaveKeyWithValue("deliveryId", SatisfyAll(Not(BeEmpty()), Not(Equal(first)))))
		Eventually(func() []Mail { return f.Mail.To(recipient) }).WithTimeout(MailTimeout).Should(HaveLen(2))

		By("dry-running a submission: every gate judged; the recipient's verification, skipped by a dry run, says a live one would not be delivered")
		fields := []any{map[string]any{"name": "email", "value": "visitor@example.com"}, map[string]any{"name": "message", "value": "Hello"}}
		dry := agent.MustCall("dry_run_submission", map[string]any{"formId": formID, "fields": fields, "origin": "https://example.com"}).Out
		Expect(dry).To(HaveKeyWithValue("dryRun", true))
		verdicts := gateVerdictsOf(ToolResult{Out: dry})
		Expect(verdicts).To(HaveLen(len(submitGates)))
		Expect(verdicts).To(ContainElements("access_key=passed", "recipient_verified=skipped", "origin=passed", "fields=passed"))
		Expect(dry).To(HaveKeyWithValue("validation", HaveKeyWithValue("recipientVerified", false)))
		bad := agent.MustCall("dry_run_submission", map[string]any{"formId": formID, "origin": "https://elsewhere.example",
			"fields": []any{map[string]any{"name": "email", "value": "not an address"}}}).Out
		Expect(bad).To(HaveKeyWithValue("success", false), "a failing gate is a result, not a tool error")
		Expect(gateVerdictsOf(ToolResult{Out: bad})).To(ContainElements("origin=failed", "fields=failed"))
		Expect(bad["errors"]).To(ContainElement(HaveKeyWithValue("field", "email")))

		By("reading the audit trail of every change")
		events := agent.MustCall("get_form_history", map[string]any{"formId": formID}).Array("events")
		var types []string
		for _, e := range events {
			types = append(types, e.(map[string]any)["type"].(string))
		}
		Expect(types).To(HaveExactElements("form.created.v1", "form.settings_changed.v1", "form.integration_configured.v1",
			"form.webhook_secret_issued.v1"))
		Expect(events[1].(map[string]any)["changes"]).To(ContainElement(change("subjectDefault", "", "New lead from MCP")))
		Expect(events[1].(map[string]any)["actor"]).To(HaveKeyWithValue("type", "session"))
		Expect(events[1].(map[string]any)["actor"]).To(HaveKeyWithValue("name", owner), "the owner, by the account's email")
		Expect(f.Events(session, formID)).To(HaveLen(len(events)), "the same trail as GET /v1/forms/{formId}/events")

		By("listing the deliveries: both verification emails and the webhook test")
		Eventually(func() []any {
			return agent.MustCall("list_deliveries", map[string]any{"formId": formID}).Array("deliveries")
		}).WithTimeout(10 * time.Second).Should(ContainElements(
			SatisfyAll(HaveKeyWithValue("id", test["id"]), HaveKeyWithValue("state", "succeeded")),
			SatisfyAll(HaveKeyWithValue("id", first), HaveKeyWithValue("kind", "recipient_verification")),
			HaveKeyWithValue("id", resent["deliveryId"])))
		page := agent.MustCall("list_deliveries", map[string]any{"formId": formID, "kind": "webhook", "limit": 1})
		Expect(page.Array("deliveries")).To(ConsistOf(HaveKeyWithValue("id", test["id"])))

		By("a person following the newest verification link: no tool can")
		mails := f.Mail.To(recipient)
		Expect(f.FollowLink(Link(mails[len(mails)-1])).Status).To(Equal(http.StatusOK))

		By("the agent seeing the recipient verified and the dry run passing")
		Expect(agent.MustCall("get_recipient_verification", map[string]any{"formId": formID}).Object("verification")).
			To(HaveKeyWithValue("status", "verified"))
		dry = agent.MustCall("dry_run_submission", map[string]any{"formId": formID, "fields": fields, "origin": "https://example.com"}).Out
		Expect(dry).To(HaveKeyWithValue("success", true), "%v", dry)
		Expect(dry).To(HaveKeyWithValue("validation", HaveKeyWithValue("recipientVerified", true)))
		Expect(f.OpenDB().AcceptedSubmissions(formID)).To(BeEmpty(), "a dry run stores nothing")

		By("switching on test mode: a website's post is judged like a live one and read_test_inbox shows what it would have sent")
		Expect(agent.MustCall("update_form", map[string]any{"formId": formID, "testMode": true}).Object("form")).
			To(HaveKeyWithValue("testMode", true))
		mailsBefore, callsBefore := len(f.Mail.To(recipient)), len(receiver.Calls("/mcp-hook"))
		posted := f.Post("", "/submit", map[string]any{"access_key": created["accessKey"], "email": "visitor@example.com",
			"message": "Through test mode"}, fromExampleCom(), Header("Idempotency-Key", "mcp-test-1"))
		Expect(posted.Status).To(Equal(http.StatusOK), "%s", posted)
		Expect(posted.JSON).To(HaveKeyWithValue("test", true))
		inbox := agent.MustCall("read_test_inbox", map[string]any{"formId": formID, "idempotencyKey": "mcp-test-1"}).Array("submissions")
		Expect(inbox).To(HaveLen(1))
		var mail, request map[string]any
		for _, d := range inbox[0].(map[string]any)["deliveries"].([]any) {
			d := d.(map[string]any)
			switch d["kind"] {
			case "notification":
				mail = d["email"].(map[string]any)
			case "webhook":
				request = d["request"].(map[string]any)
			}
		}
		Expect(mail).To(And(HaveKeyWithValue("to", recipient), HaveKeyWithValue("subject", "New lead from MCP"),
			HaveKeyWithValue("replyTo", "visitor@example.com"), HaveKeyWithValue("text", ContainSubstring("message: Through test mode"))))
		Expect(asWebhookCall(request).JSON()).To(HaveKeyWithValue("test", true), "the rendered webhook says it is a test")
		Expect(verifyStandardWebhook(secret, asWebhookCall(request))).To(BeFalse(), "the rendered webhook's signature is redacted")
		Consistently(func() int { return len(f.Mail.To(recipient)) + len(receiver.Calls("/mcp-hook")) }).
			WithTimeout(time.Second).Should(Equal(mailsBefore+callsBefore), "nothing reached the SMTP server or the receiver")
		Expect(agent.MustCall("clear_test_inbox", map[string]any{"formId": formID}).Out).To(HaveKeyWithValue("deleted", 1.0))
		Expect(agent.MustCall("read_test_inbox", map[string]any{"formId": formID}).Array("submissions")).To(BeEmpty())
		agent.MustCall("update_form", map[string]any{"formId": formID, "testMode": false})
	})

	It("answers a token without forms:write on the reading tools, and refuses it the writing ones with the API's message", func() {
		Expect(formID).NotTo(BeEmpty(), "the set-up spec ran first")
		ws := f.Workspaces(session)[0]["id"].(string)
		reader := f.ConnectMCP(f.TokenWith(session, ws, "forms:read").Secret)

		Expect(reader.MustCall("list_forms", nil).Array("forms")).To(ContainElement(HaveKeyWithValue("id", formID)))
		Expect(reader.MustCall("get_form_history", map[string]any{"formId": formID}).Array("events")).NotTo(BeEmpty())
		for tool, args := range map[string]map[string]any{
			"create_form":           {"name": "Not allowed", "recipientEmail": UniqueEmail("mcp-denied")},
			"update_form":           {"formId": formID, "name": "Renamed by a reader"},
			"configure_integration": {"formId": formID, "type": "webhook", "enabled": false},
			"test_integration":      {"formId": formID, "type": "webhook"},
		} {
			r := reader.Call(tool, args)
			Expect(r.IsError).To(BeTrue(), "%s: %s", tool, r.Text)
			Expect(r.Text).To(Equal("This workspace API token lacks the forms:write scope, which this route needs. Use a token with forms:write, or a session."), tool)
		}
		Expect(f.FormByID(session, formID)).To(HaveKeyWithValue("name", "MCP contact"))
		Expect(f.Forms(session)).To(HaveLen(1), "no form was created")
		Expect(f.FormByID(session, formID)["version"]).To(BeNumerically("==", 7), "created, changed, a webhook with its secret, the recipient verified, test mode on and off")

		By("another account seeing none of it")
		other, _ := f.RegisteredVerifiedUser()
		stranger := f.ConnectMCP(other)
		for _, tool := range []string{"get_form_history", "get_recipient_verification", "list_deliveries"} {
			Expect(stranger.Call(tool, map[string]any{"formId": formID})).To(Equal(ToolResult{IsError: true, Text: "Not found."}), tool)
		}
		Expect(stranger.Call("dry_run_submission", map[string]any{"formId": formID, "fields": []any{}})).
			To(Equal(ToolResult{IsError: true, Text: "Not found."}))
		Expect(f.OpenDB().Int("SELECT count(*) FROM events WHERE stream_id = $1", formID)).To(Equal(7), "nothing was changed")
		Expect(owner).NotTo(BeEmpty())
	})

	It("shows a form, its deliveries and its recipient's verification as /v1 shows them", func() {
		Expect(formID).NotTo(BeEmpty(), "the set-up spec ran first")
		agent := f.ConnectMCP(session)

		By("the form: list_forms and GET /v1/forms give the same object")
		var apiForm map[string]any
		for _, fm := range f.Forms(session) {
			if fm["id"] == formID {
				apiForm = fm
			}
		}
		Expect(agent.MustCall("list_forms", nil).Array("forms")).To(ContainElement(Equal(apiForm)))

		By("the delivery log: the same page, delivery by delivery")
		Eventually(func(g Gomega) {
			api := f.Get(session, "/v1/forms/"+formID+"/deliveries")
			g.Expect(api.Status).To(Equal(http.StatusOK))
			g.Expect(agent.MustCall("list_deliveries", map[string]any{"formId": formID}).Array("deliveries")).
				To(Equal(api.JSON["deliveries"]))
		}).WithTimeout(10 * time.Second).Should(Succeed())

		By("the verification: the same record; only the next step names each side's own way to resend")
		viaTool := agent.MustCall("get_recipient_verification", map[string]any{"formId": formID}).Object("verification")
		viaAPI := f.Get(session, "/v1/forms/"+formID+"/recipient-verification").JSON["verification"].(map[string]any)
		delete(viaTool, "nextStep")
		delete(viaAPI, "nextStep")
		Expect(viaTool).To(Equal(viaAPI))
	})

	It("answers 401 in the API's error shape without a valid credential", func() {
		initialize := RawJSON(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
		for _, headers := range [][]http.Header{nil, {Bearer("fds_not-a-session")}, {SessionCookie(session)}} {
			r := f.Post("", "/mcp", initialize, append(headers, OffContract("MCP speaks JSON-RPC, not the REST contract"),
				Header("Accept", "application/json, text/event-stream"))...)
			ExpectError(r, http.StatusUnauthorized, "A valid bearer token or session cookie is required.")
			Expect(r.Header.Get("WWW-Authenticate")).To(HavePrefix("Bearer"))
			Expect(r.JSON).To(HaveKeyWithValue("requestId", r.RequestID()))
		}
		By("the SDK's client failing to connect")
		client := sdk.NewClient(&sdk.Implementation{Name: "anonymous", Version: "1"}, nil)
		_, err := client.Connect(mcpContext(), &sdk.StreamableClientTransport{Endpoint: f.URL + "/mcp", MaxRetries: -1}, nil)
		Expect(err).To(HaveOccurred())
		Expect(strings.ToLower(err.Error())).To(ContainSubstring("unauthorized"))
	})

	It("is listed in the API catalog and explained in /auth.md", func() {
		catalog := f.Get("", "/.well-known/api-catalog")
		Expect(catalog.Status).To(Equal(http.StatusOK))
		var entry map[string]any
		for _, e := range catalog.Array("linkset") {
			if e.(map[string]any)["anchor"] == f.URL+"/mcp" {
				entry = e.(map[string]any)
			}
		}
		Expect(entry).NotTo(BeNil(), "an entry anchored at %s/mcp in %s", f.URL, catalog)
		docs := entry["service-doc"].([]any)
		Expect(docs).NotTo(BeEmpty())
		href := docs[0].(map[string]any)["href"].(string)
		Expect(href).To(HavePrefix(f.URL + "/auth.md"))

		doc := f.Get("", href)
		Expect(doc.Status).To(Equal(http.StatusOK))
		text := string(doc.Body)
		Expect(text).To(ContainSubstring("## MCP server"))
		Expect(text).To(ContainSubstring(f.URL + "/mcp"))
		Expect(text).To(ContainSubstring("Authorization: Bearer"))
		Expect(text).To(ContainSubstring("fdw_"), "which credential to use")
		Expect(text).To(ContainSubstring("account's email verification"), "what needs a person")
		Expect(text).To(ContainSubstring("recipient's verification"), "what needs a person")
		for _, tool := range mcpTools {
			Expect(text).To(ContainSubstring(tool))
		}
	})

	It("reports its requests to the request metrics under the route /mcp", func() {
		metricsAddr := "127.0.0.1:" + freePort()
		own := StartFormd("FORMD_METRICS_ADDR=" + metricsAddr)
		token, _ := own.RegisteredVerifiedUser()
		Expect(own.ConnectMCP(token).Tools()).To(Equal(mcpTools))
		r := own.Post("", "/mcp", RawJSON(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), OffContract("MCP speaks JSON-RPC"))
		Expect(r.Status).To(Equal(http.StatusUnauthorized))

		client := &http.Client{Timeout: 10 * time.Second}
		DeferCleanup(client.CloseIdleConnections)
		Eventually(func(g Gomega) {
			resp, err := client.Get("http://" + metricsAddr + "/metrics")
			g.Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			parser := expfmt.NewTextParser(model.UTF8Validation)
			families, err := parser.TextToMetricFamilies(resp.Body)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(sample(families, "formd_http_request_duration_seconds", "route", "/mcp", "method", "POST", "status", "2xx")).
				To(BeNumerically(">=", 2), "initialize and tools/list at least")
			g.Expect(sample(families, "formd_http_request_duration_seconds", "route", "/mcp", "method", "POST", "status", "4xx")).
				To(Equal(1.0))
		}).WithTimeout(5 * time.Second).Should(Succeed())
	})
})
