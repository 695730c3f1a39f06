package features_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Integration credentials and write-only tokens", Ordered, func() {
	var f *Formd
	var session, workspaceID, formID string

	BeforeAll(func() {
		f = shared
		session, _ = f.RegisteredVerifiedUser()
		form, _ := f.CreateForm(session, contactForm(nil))
		formID, workspaceID = form["id"].(string), form["workspaceId"].(string)
	})

	It("never answers a Slack or Discord URL in full once saved: not in PATCH, GET or the audit trail", func() {
		for _, typ := range []string{"slack", "discord"} {
			credential := randomHex(12)
			target := "https://hooks.example.com/services/T0001/B0001/" + credential
			masked := "https://hooks.example.com/…" + credential[len(credential)-4:]
			r := f.Patch(session, integrationsPath(formID, typ), map[string]any{"enabled": true, "targetUrl": target})
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			Expect(r.Object("integration")).To(HaveKeyWithValue("targetUrl", masked))
			Expect(string(r.Body)).NotTo(ContainSubstring(credential))
			again := f.Patch(session, integrationsPath(formID, typ), map[string]any{})
			Expect(again.Object("integration")).To(HaveKeyWithValue("targetUrl", masked), "PATCH {} reads no more than GET")
			Expect(string(again.Body)).NotTo(ContainSubstring(credential))
			listed := f.Get(session, integrationsPath(formID))
			Expect(string(listed.Body)).NotTo(ContainSubstring(credential))
			Expect(listed.Array("integrations")).To(ContainElement(And(HaveKeyWithValue("type", typ), HaveKeyWithValue("targetUrl", masked))))
			events := f.Get(session, "/v1/forms/"+formID+"/events")
			Expect(string(events.Body)).NotTo(ContainSubstring(credential), "the audit trail masks it too")
			Expect(string(events.Body)).To(ContainSubstring(credential[len(credential)-4:]))
		}
	})

	It("answers a token that may write forms but not read them with an acknowledgement, not the record", func() {
		writer := f.TokenWith(session, workspaceID, "forms:write")

		By("PATCH /v1/forms/{formId} with {}: the form's id and time, no setting")
		r := f.Patch(writer.Secret, "/v1/forms/"+formID, map[string]any{})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(keysOf(r.Object("form"))).To(Equal([]string{"id", "updatedAt"}), "%s", r)
		Expect(r.Object("form")).To(HaveKeyWithValue("id", formID))

		By("the change is made all the same")
		r = f.Patch(writer.Secret, "/v1/forms/"+formID, map[string]any{"name": "Renamed by a writer"})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(keysOf(r.Object("form"))).To(Equal([]string{"id", "updatedAt"}))
		Expect(f.FormByID(session, formID)).To(HaveKeyWithValue("name", "Renamed by a writer"))

		By("PATCH of an integration with {}: its type and time, no URL")
		r = f.Patch(writer.Secret, integrationsPath(formID, "slack"), map[string]any{})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(keysOf(r.Object("integration"))).To(Equal([]string{"type", "updatedAt"}), "%s", r)

		By("a webhook it creates still hands over its signing secret, once, and so does a rotation")
		r = f.Patch(writer.Secret, integrationsPath(formID, "webhook"), map[string]any{"targetUrl": "https://hooks.example.com/formd"})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(keysOf(r.Object("integration"))).To(Equal([]string{"secret", "type", "updatedAt"}))
		expectStandardWebhooksSecret(r.Object("integration")["secret"])
		r = f.Post(writer.Secret, integrationsPath(formID, "webhook")+"/rotate-secret", nil)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(keysOf(r.Object("integration"))).To(Equal([]string{"secret", "type", "updatedAt"}))

		By("the MCP server answers the same: an acknowledgement, and a masked URL to whom may read")
		mcpWriter := f.ConnectMCP(writer.Secret)
		out := mcpWriter.MustCall("update_form", map[string]any{"formId": formID, "name": "Renamed through MCP"})
		Expect(out.Out).NotTo(HaveKey("form"))
		Expect(keysOf(out.Object("saved"))).To(Equal([]string{"id", "updatedAt"}))
		out = mcpWriter.MustCall("configure_integration", map[string]any{"formId": formID, "type": "slack", "enabled": true})
		Expect(out.Out).NotTo(HaveKey("integration"))
		Expect(keysOf(out.Object("saved"))).To(Equal([]string{"type", "updatedAt"}))
		out = f.ConnectMCP(session).MustCall("configure_integration", map[string]any{"formId": formID, "type": "slack", "enabled": true})
		Expect(out.Object("integration")).To(HaveKeyWithValue("targetUrl", HavePrefix("https://hooks.example.com/…")))
		Expect(out.Text).NotTo(ContainSubstring("/services/"))

		By("a token that may also read gets the record")
		both := f.TokenWith(session, workspaceID, "forms:read", "forms:write")
		r = f.Patch(both.Secret, "/v1/forms/"+formID, map[string]any{})
		Expect(r.Object("form")).To(HaveKeyWithValue("name", "Renamed through MCP"))
		r = f.Patch(both.Secret, integrationsPath(formID, "slack"), map[string]any{})
		Expect(r.Object("integration")).To(HaveKeyWithValue("targetUrl", HavePrefix("https://hooks.example.com/…")))
	})
})
