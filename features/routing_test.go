package features_test

import (
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Routing rules (docs/routing.md): a submission goes to every verified
// recipient whose rule its fields match, else to the form's primary
// recipient.
var _ = Describe("Routing rules", func() {
	var f *Formd
	BeforeEach(func() { f = shared })

	var token, id, key, primary, sales, support string

	BeforeEach(func() {
		token, _ = f.RegisteredVerifiedUser()
		primary, sales, support = UniqueEmail("inbox"), UniqueEmail("sales"), UniqueEmail("support")
		var form map[string]any
		form, key = f.CreateForm(token, contactForm(map[string]any{"recipientEmail": primary, "routes": []any{
			map[string]any{"recipientEmail": support, "field": "department", "operator": "in", "values": []any{"help", "support"}},
			map[string]any{"recipientEmail": sales, "field": "department", "operator": "equals", "value": "Sales"},
			map[string]any{"recipientEmail": sales, "field": "message", "operator": "matches", "value": `^Quote #\d+`},
		}}))
		id = form["id"].(string)
		Expect(form["routes"]).To(HaveLen(3))
		Expect(form["routeVerification"]).To(ConsistOf(
			map[string]any{"recipientEmail": support, "status": "pending"},
			map[string]any{"recipientEmail": sales, "status": "pending"},
		))
		By("the primary and the sales recipient following their links; support leaving its own unanswered")
		f.VerifyRecipient(primary)
		link := f.Mail.WaitForMail(sales)
		Expect(link.Text).To(ContainSubstring("routing rules send some of its submissions to " + sales))
		page := f.FollowLink(Link(link))
		Expect(page.Status).To(Equal(http.StatusOK), "%s", page)
		Expect(string(page.Body)).To(ContainSubstring("routing rules send to it"))
		Expect(f.Mail.WaitForMail(support).Subject).NotTo(BeEmpty(), "support's own verification mail")
		Expect(f.FormByID(token, id)["routeVerification"]).To(ConsistOf(
			map[string]any{"recipientEmail": support, "status": "pending"},
			map[string]any{"recipientEmail": sales, "status": "verified"},
		))
	})

	submit := func(department, message string) *Response {
		GinkgoHelper()
		r := f.Post("", "/submit", orderedJSON("access_key", key, "name", "Ada", "email", UniqueEmail("visitor"),
			"department", department, "message", message), fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		return r
	}
	noMoreMailTo := func(address string, n int) {
		GinkgoHelper()
		Consistently(func() []Mail { return f.Mail.To(address) }).
			WithTimeout(700*time.Millisecond).WithPolling(50*time.Millisecond).Should(HaveLen(n), "mails to %s", address)
	}

	It("sends a matching submission to the routed verified recipient, not the primary", func() {
		r := submit("sales", "Hello")
		m := f.Mail.WaitForMail(sales)
		Expect(m.Text).To(ContainSubstring("Hello"))
		Expect(m.Header.Get("Message-Id")).To(ContainSubstring(r.JSON["deliveryId"].(string)))
		noMoreMailTo(primary, 1) // its verification mail only

		By("two rules naming the same address sending it one mail")
		submit("sales", "Quote #12 please")
		f.Mail.WaitForMail(sales)
		noMoreMailTo(sales, 3)
	})

	It("renders a test submission's routed notification as a live one would be sent", func() {
		Expect(f.Patch(token, "/v1/forms/"+id, map[string]any{"testMode": true}).Status).To(Equal(http.StatusOK))
		r := submit("sales", "Just testing")
		Expect(r.JSON).To(HaveKeyWithValue("test", true))
		inbox := f.Get(token, "/v1/forms/"+id+"/test-inbox")
		Expect(inbox.Status).To(Equal(http.StatusOK), "%s", inbox)
		subs := inbox.Array("submissions")
		Expect(subs).To(HaveLen(1))
		var recipients []any
		for _, d := range subs[0].(map[string]any)["deliveries"].([]any) {
			if mail, ok := d.(map[string]any)["email"].(map[string]any); ok && d.(map[string]any)["kind"] == "notification" {
				recipients = append(recipients, mail["to"])
			}
		}
		Expect(recipients).To(Equal([]any{sales}))
		noMoreMailTo(sales, 1) // its verification mail only: a test sends nothing
	})

	It("sends a submission no rule matches to the primary", func() {
		submit("press", "Hi there")
		Expect(f.Mail.WaitForMail(primary).Text).To(ContainSubstring("Hi there"))
		noMoreMailTo(sales, 1)
	})

	It("sends the primary a submission whose matched recipient is not verified, and the delivery log says why", func() {
		r := submit("Support", "Help me")
		Expect(f.Mail.WaitForMail(primary).Text).To(ContainSubstring("Help me"))
		noMoreMailTo(support, 1)
		page, _ := deliveriesOf(f, token, id, "")
		d := deliveryIn(page, r.JSON["deliveryId"].(string))
		Expect(d).NotTo(BeNil())
		Expect(d["note"]).To(Equal("rule 1 matched, but its recipient s…@example.test is not verified; sent to the primary recipient"))
	})

	It("resends a routing recipient its own link, which then lets it receive", func() {
		r := f.Post(token, "/v1/forms/"+id+"/recipient-verifications", map[string]any{"recipientEmail": support})
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
		Expect(r.Object("verification")).To(SatisfyAll(HaveKeyWithValue("recipientEmail", support), HaveKeyWithValue("status", "pending")))
		f.VerifyRecipient(support)
		Expect(f.FormByID(token, id)["routeVerification"]).To(ContainElement(map[string]any{"recipientEmail": support, "status": "verified"}))
		submit("help", "Routed at last")
		Expect(f.Mail.WaitForMail(support).Text).To(ContainSubstring("Routed at last"))

		By("a resend for an address no rule names being refused")
		ExpectError(f.Post(token, "/v1/forms/"+id+"/recipient-verifications", map[string]any{"recipientEmail": UniqueEmail("x")}),
			http.StatusBadRequest, "recipientEmail")
	})

	It("lets an agent set and read routes through the MCP form tools", func() {
		agent := f.ConnectMCP(token)
		updated := agent.MustCall("update_form", map[string]any{"formId": id, "routes": []any{
			map[string]any{"recipientEmail": sales, "field": "topic", "operator": "contains", "value": "price"}}}).Object("form")
		Expect(updated["routes"]).To(ConsistOf(map[string]any{"recipientEmail": sales, "field": "topic", "operator": "contains", "value": "price"}))
		Expect(updated["routeVerification"]).To(ConsistOf(map[string]any{"recipientEmail": sales, "status": "verified"}),
			"the address's verification lasts while a rule names it")
		Expect(f.FormByID(token, id)["routes"]).To(HaveLen(1), "the API sees the change")
	})

	It("refuses routes it cannot apply, naming the field", func() {
		for field, routes := range map[string][]any{
			"routes[0].operator": {map[string]any{"recipientEmail": sales, "field": "department", "operator": "startsWith", "value": "x"}},
			"routes[0].value":    {map[string]any{"recipientEmail": sales, "field": "department", "operator": "matches", "value": "(a|b)+"}},
			"routes[1].recipientEmail": {map[string]any{"recipientEmail": sales, "field": "d", "operator": "equals", "value": "x"},
				map[string]any{"recipientEmail": "nobody", "field": "d", "operator": "equals", "value": "x"}},
		} {
			ExpectError(f.Patch(token, "/v1/forms/"+id, map[string]any{"routes": routes}), http.StatusBadRequest, field)
		}
	})

	It("traces the routing decision in a dry run", func() {
		r := f.Post("", "/submit", orderedJSON("access_key", key, "department", "sales", "message", "Hi"), dryRunHeader("true"))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(gateMessage(r, "routing")).To(Equal("routed to s…@example.test by rule 2"))
		r = f.Post("", "/submit", orderedJSON("access_key", key, "department", "other", "message", "Hi"), dryRunHeader("true"))
		Expect(gateMessage(r, "routing")).To(Equal("no rule matched; routed to the primary recipient"))
	})

	It("records route changes in the audit trail and forgets a removed route's verification", func() {
		r := f.Patch(token, "/v1/forms/"+id, map[string]any{"routes": []any{
			map[string]any{"recipientEmail": support, "field": "department", "operator": "contains", "value": "help"}}})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		events := f.Events(token, id)
		last := events[len(events)-1]
		Expect(last).To(HaveKeyWithValue("type", "form.settings_changed.v1"))
		Expect(last["changes"]).To(ContainElement(HaveKeyWithValue("field", "routes")))
		Expect(events).To(ContainElement(HaveKeyWithValue("type", "form.route_recipient_verified.v1")))

		By("adding the sales route back needing a new link")
		r = f.Patch(token, "/v1/forms/"+id, map[string]any{"routes": []any{
			map[string]any{"recipientEmail": sales, "field": "department", "operator": "equals", "value": "sales"}}})
		Expect(r.Object("form")["routeVerification"]).To(ConsistOf(map[string]any{"recipientEmail": sales, "status": "pending"}))
		Expect(strings.ToLower(f.Mail.WaitForMail(sales).Subject)).To(ContainSubstring("confirm"))
	})
})
