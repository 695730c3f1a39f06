package features_test

import (
	"net/http"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// changedFields maps each change of a list (from the audit trail or a diff)
// to its from and to values.
func changedFields(changes []any) map[string][2]any {
	GinkgoHelper()
	out := map[string][2]any{}
	for _, c := range changes {
		change := c.(map[string]any)
		out[change["field"].(string)] = [2]any{change["from"], change["to"]}
	}
	return out
}

var _ = Describe("A form's settings at any version", func() {
	var f *Formd

	BeforeEach(func() {
		f = shared
	})

	It("reads version 2, compares it with version 4, restores it as a new event by its actor, and refuses a restore the plan no longer allows", func() {
		token, email := f.RegisteredVerifiedUser()
		f.SetPlan(email, "pro")
		form, _ := f.CreateForm(token, contactForm(map[string]any{"allowedDomains": []string{"www.example.com"}}))
		id := form["id"].(string)
		path := "/v1/forms/" + id

		By("changing the settings three times: versions 2, 3 and 4")
		for _, patch := range []map[string]any{
			{"name": "Contact us"},
			{"name": "Support", "subjectDefault": "Hello"},
			{"allowedDomains": []string{"*.example.com"}},
		} {
			r := f.Patch(token, path, patch)
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		}
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("version", BeEquivalentTo(4)))

		By("reading version 2: its settings, the event that made it and who acted")
		r := f.Get(token, path+"/versions/2")
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		v := r.Object("version")
		Expect(v).To(HaveKeyWithValue("version", BeEquivalentTo(2)))
		Expect(v).To(HaveKeyWithValue("type", "form.settings_changed.v1"))
		Expect(v).To(HaveKeyWithValue("recordedAt", Not(BeEmpty())))
		Expect(v).To(HaveKeyWithValue("actor", And(HaveKeyWithValue("type", "session"), HaveKeyWithValue("name", email))))
		settings := v["settings"].(map[string]any)
		Expect(settings).To(HaveKeyWithValue("name", "Contact us"))
		Expect(settings).To(HaveKeyWithValue("subjectDefault", ""))
		Expect(settings).To(HaveKeyWithValue("allowedDomains", ConsistOf("www.example.com")))
		Expect(settings).To(HaveKeyWithValue("version", BeEquivalentTo(2)))
		Expect(settings).To(HaveKeyWithValue("captcha", HaveKeyWithValue("hasSecret", false)))

		By("a version the form has not reached being not found")
		ExpectError(f.Get(token, path+"/versions/5"), http.StatusNotFound)
		ExpectError(f.Get(token, path+"/versions/0"), http.StatusNotFound)
		ExpectError(f.Get(token, path+"/versions/2/diff/5"), http.StatusNotFound)

		By("comparing version 2 with version 4")
		r = f.Get(token, path+"/versions/2/diff/4")
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		diff := r.Object("diff")
		Expect(diff).To(HaveKeyWithValue("from", BeEquivalentTo(2)))
		Expect(diff).To(HaveKeyWithValue("to", BeEquivalentTo(4)))
		Expect(changedFields(diff["changes"].([]any))).To(Equal(map[string][2]any{
			"name":           {"Contact us", "Support"},
			"subjectDefault": {"", "Hello"},
			"allowedDomains": {[]any{"www.example.com"}, []any{"*.example.com"}},
		}))

		By("restoring version 2: the form answers as PATCH does, with version 2's settings")
		r = f.Post(token, path+"/restore", map[string]any{"version": 2})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		restored := r.Object("form")
		Expect(restored).To(HaveKeyWithValue("name", "Contact us"))
		Expect(restored).To(HaveKeyWithValue("subjectDefault", ""))
		Expect(restored).To(HaveKeyWithValue("allowedDomains", ConsistOf("www.example.com")))
		Expect(restored).To(HaveKeyWithValue("version", BeEquivalentTo(5)))
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("name", "Contact us"))

		By("the audit trail showing the restore, who made it and the version restored, with nothing rewritten")
		events := f.Get(token, path+"/events").Array("events")
		Expect(events).To(HaveLen(5))
		last := events[4].(map[string]any)
		Expect(last).To(HaveKeyWithValue("type", "form.settings_restored.v1"))
		Expect(last).To(HaveKeyWithValue("version", BeEquivalentTo(5)))
		Expect(last).To(HaveKeyWithValue("restoredVersion", BeEquivalentTo(2)))
		Expect(last).To(HaveKeyWithValue("actor", And(HaveKeyWithValue("type", "session"), HaveKeyWithValue("name", email))))
		Expect(last).To(HaveKeyWithValue("requestId", r.RequestID()))
		Expect(changedFields(last["changes"].([]any))).To(HaveKeyWithValue("name", [2]any{"Support", "Contact us"}))
		Expect(f.Get(token, path+"/versions/4").Object("version")["settings"]).To(
			HaveKeyWithValue("allowedDomains", ConsistOf("*.example.com")), "version 4 is as it was")

		By("a restore the plan no longer allows being refused with 400 naming the setting, recording nothing")
		f.SetPlan(email, "free")
		ExpectError(f.Post(token, path+"/restore", map[string]any{"version": 4}), http.StatusBadRequest, "allowedDomains", "wildcard")
		ExpectError(f.Post(token, path+"/restore", map[string]any{"version": 9}), http.StatusBadRequest, "version")
		Expect(f.Get(token, path+"/events").Array("events")).To(HaveLen(5))
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("allowedDomains", ConsistOf("www.example.com")))

		By("another account seeing none of it")
		stranger, _ := f.RegisteredVerifiedUser()
		ExpectError(f.Get(stranger, path+"/versions/2"), http.StatusNotFound)
		ExpectError(f.Post(stranger, path+"/restore", map[string]any{"version": 2}), http.StatusNotFound)
	})

	It("offers the same to agents: get_form_version answers as the API does, restore_form_version restores through the same command", func() {
		token, email := f.RegisteredVerifiedUser()
		form, _ := f.CreateForm(token, contactForm(nil))
		id := form["id"].(string)
		r := f.Patch(token, "/v1/forms/"+id, map[string]any{"name": "Support"})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		agent := f.ConnectMCP(token)

		By("get_form_version: the API's version, shape for shape")
		api := f.Get(token, "/v1/forms/"+id+"/versions/1")
		Expect(api.Status).To(Equal(http.StatusOK), "%s", api)
		Expect(agent.MustCall("get_form_version", map[string]any{"formId": id, "version": 1}).Out).To(Equal(api.Object("version")))
		Expect(agent.Call("get_form_version", map[string]any{"formId": id, "version": 3}).IsError).To(BeTrue(), "a version the form has not reached")

		By("restore_form_version: the form back at version 1's settings, the restore in get_form_history")
		restored := agent.MustCall("restore_form_version", map[string]any{"formId": id, "version": 1})
		Expect(restored.Out).To(HaveKeyWithValue("form", HaveKeyWithValue("name", "Contact")))
		events := agent.MustCall("get_form_history", map[string]any{"formId": id}).Array("events")
		Expect(events).To(HaveLen(3))
		Expect(events[2]).To(And(HaveKeyWithValue("type", "form.settings_restored.v1"), HaveKeyWithValue("restoredVersion", 1.0),
			HaveKeyWithValue("actor", HaveKeyWithValue("name", email))))
	})

	It("links each event of the dashboard's audit trail to the settings as of its version, compared with the current ones, with a button that restores them", func() {
		token, email := f.RegisteredVerifiedUser()
		form, _ := f.CreateForm(token, contactForm(nil))
		id := form["id"].(string)
		for _, patch := range []map[string]any{{"name": "Contact us"}, {"name": "Support", "subjectDefault": "Hello"}} {
			r := f.Patch(token, "/v1/forms/"+id, patch)
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		}
		tab := NewTab()
		signIn(tab, f, email)

		By("following version 2's link from the audit trail")
		tab.Do(chromedp.Navigate(f.URL + "/dashboard/forms/" + id + "/audit"))
		tab.Do(chromedp.Click(chromedp.CSS(`.timeline a[href$="/versions/2"]`)))
		waitForPath(tab, f, "/dashboard/forms/"+id+"/versions/2")
		Expect(tab.Text("h2#version-title")).To(Equal("Settings as of version 2"))
		Expect(tab.Text(".version-settings")).To(ContainSubstring("Contact us"))
		Expect(tab.Text(".version-differences")).To(And(ContainSubstring("Contact us"), ContainSubstring("Support"), ContainSubstring("Hello")))
		checkPage(tab, "form-version")

		By("restoring it: the trail shows the restore first, and the API the settings of version 2")
		tab.Do(chromedp.Click(chromedp.CSS(`form[action$="/versions/2/restore"] button[type=submit]`)))
		waitForPath(tab, f, "/dashboard/forms/"+id+"/audit")
		Expect(tab.Text(".banner-ok")).To(ContainSubstring("Settings restored"))
		Expect(tab.Text(".timeline .event:first-child h3")).To(Equal("Settings restored"))
		Expect(tab.Text(".timeline .event:first-child .event-restored")).To(ContainSubstring("version 2"))
		Expect(tab.Text(".timeline .event:first-child .actor")).To(Equal(email))
		got := f.FormByID(token, id)
		Expect(got).To(HaveKeyWithValue("name", "Contact us"))
		Expect(got).To(HaveKeyWithValue("subjectDefault", ""))

		By("the latest version having nothing to restore")
		tab.Do(chromedp.Click(chromedp.CSS(`.timeline .event:first-child a[href$="#compare"]`)))
		waitForPath(tab, f, "/dashboard/forms/"+id+"/versions/4")
		Expect(tab.Text("#compare ~ .empty")).To(ContainSubstring("nothing to restore"))
	})

	It("shows a restore the plan no longer allows on the version's page, naming the setting", func() {
		token, email := f.RegisteredVerifiedUser()
		f.SetPlan(email, "pro")
		form, _ := f.CreateForm(token, contactForm(nil))
		id := form["id"].(string)
		for _, domains := range [][]string{{"*.example.com"}, {"www.example.com"}} {
			r := f.Patch(token, "/v1/forms/"+id, map[string]any{"allowedDomains": domains})
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		}
		f.SetPlan(email, "free")
		tab := NewTab()
		signIn(tab, f, email)
		tab.Do(chromedp.Navigate(f.URL + "/dashboard/forms/" + id + "/versions/2"))
		tab.Do(chromedp.Click(chromedp.CSS(`form[action$="/versions/2/restore"] button[type=submit]`)))
		tab.Do(chromedp.WaitVisible(chromedp.CSS(".banner-error")))
		Expect(tab.Text(".banner-error")).To(And(ContainSubstring("allowedDomains"), ContainSubstring("wildcard")))
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("version", BeEquivalentTo(3)), "nothing recorded")
	})
})
