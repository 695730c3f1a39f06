package features_test

import (
	"fmt"
	"net/http"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// archiveChanges lists the archive changes of a form's audit trail as
// "type: from -> to", oldest first.
func archiveChanges(events []map[string]any) []string {
	GinkgoHelper()
	var out []string
	for _, ev := range events {
		for _, c := range ev["changes"].([]any) {
			change := c.(map[string]any)
			if change["field"] == "archive" {
				out = append(out, fmt.Sprintf("%s: %v -> %v", ev["type"], change["from"], change["to"]))
			}
		}
	}
	return out
}

var _ = Describe("Submissions archive setting", func() {
	It("is off by default, turned on, changed and off through create and PATCH, bounded by the plan, and every change is in the audit trail", func() {
		f := shared
		token, email := f.RegisteredVerifiedUser()

		By("a form created without it has the archive off, and its creation records no archive")
		r := f.Post(token, "/v1/forms", contactForm(nil))
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
		plain := r.Object("form")
		Expect(plain).To(HaveKeyWithValue("archive", map[string]any{"enabled": false}))
		Expect(archiveChanges(f.Events(token, plain["id"].(string)))).To(BeEmpty())

		By("the free plan keeps archives for at most 30 days")
		ExpectError(f.Post(token, "/v1/forms", contactForm(map[string]any{"archive": map[string]any{"enabled": true, "retentionDays": 31}})),
			http.StatusBadRequest, "archive.retentionDays", "between 1 and 30")
		ExpectError(f.Post(token, "/v1/forms", contactForm(map[string]any{"archive": map[string]any{"enabled": true}})),
			http.StatusBadRequest, "archive.retentionDays")
		ExpectError(f.Post(token, "/v1/forms", contactForm(map[string]any{"archive": map[string]any{"enabled": false, "retentionDays": 5}})),
			http.StatusBadRequest, "archive.retentionDays")

		By("creating a form with the archive on for 30 days")
		r = f.Post(token, "/v1/forms", contactForm(map[string]any{"archive": map[string]any{"enabled": true, "retentionDays": 30}}))
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
		id := r.Object("form")["id"].(string)
		Expect(r.Object("form")).To(HaveKeyWithValue("archive", map[string]any{"enabled": true, "retentionDays": 30.0}))

		By("PATCH refusing 365 days on the free plan, naming the field, and changing nothing")
		ExpectError(f.Patch(token, "/v1/forms/"+id, map[string]any{"archive": map[string]any{"enabled": true, "retentionDays": 365}}),
			http.StatusBadRequest, "archive.retentionDays")
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("archive", map[string]any{"enabled": true, "retentionDays": 30.0}))

		By("on the Pro plan, 365 days is accepted, 366 is not")
		f.SetPlan(email, "pro")
		ExpectError(f.Patch(token, "/v1/forms/"+id, map[string]any{"archive": map[string]any{"enabled": true, "retentionDays": 366}}),
			http.StatusBadRequest, "archive.retentionDays", "between 1 and 365")
		r = f.Patch(token, "/v1/forms/"+id, map[string]any{"archive": map[string]any{"enabled": true, "retentionDays": 365}})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Object("form")).To(HaveKeyWithValue("archive", map[string]any{"enabled": true, "retentionDays": 365.0}))

		By("a PATCH of another setting keeps the archive as it is")
		r = f.Patch(token, "/v1/forms/"+id, map[string]any{"subjectDefault": "Hello"})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Object("form")).To(HaveKeyWithValue("archive", map[string]any{"enabled": true, "retentionDays": 365.0}))

		By("turning it off")
		r = f.Patch(token, "/v1/forms/"+id, map[string]any{"archive": map[string]any{"enabled": false}})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Object("form")).To(HaveKeyWithValue("archive", map[string]any{"enabled": false}))

		By("reading every archive change in the form's audit trail, by the owner's session")
		events := f.Events(token, id)
		Expect(archiveChanges(events)).To(Equal([]string{
			"form.created.v1: <nil> -> map[enabled:true retentionDays:30]",
			"form.settings_changed.v1: map[enabled:true retentionDays:30] -> map[enabled:true retentionDays:365]",
			"form.settings_changed.v1: map[enabled:true retentionDays:365] -> <nil>",
		}))
		for _, ev := range events {
			Expect(ev["actor"]).To(HaveKeyWithValue("type", Not(BeEmpty())))
		}

		By("back on the free plan, a form kept at 365 days keeps it until the next change of its archive")
		r = f.Patch(token, "/v1/forms/"+id, map[string]any{"archive": map[string]any{"enabled": true, "retentionDays": 365}})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		f.SetPlan(email, "free")
		r = f.Patch(token, "/v1/forms/"+id, map[string]any{"subjectDefault": "Hello again"})
		Expect(r.Status).To(Equal(http.StatusOK), "another setting stays editable: %s", r)
		Expect(r.Object("form")).To(HaveKeyWithValue("archive", map[string]any{"enabled": true, "retentionDays": 365.0}))
		ExpectError(f.Patch(token, "/v1/forms/"+id, map[string]any{"archive": map[string]any{"enabled": true, "retentionDays": 200}}),
			http.StatusBadRequest, "between 1 and 30")
	})

	It("is set in the dashboard's form settings, which show the plan's maximum and refuse more, next to the field", func() {
		f := shared
		token, email := f.RegisteredVerifiedUser()
		r := f.Post(token, "/v1/forms", contactForm(nil))
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
		id := r.Object("form")["id"].(string)
		tab := NewTab()
		signIn(tab, f, email)
		save := chromedp.Click(chromedp.CSS(`form[action$="/settings"] button[type=submit]`))

		By("the Settings tab offers the archive, off, with the free plan's 30 days named")
		tab.Do(chromedp.Navigate(f.URL+"/dashboard/forms/"+id+"/settings"), chromedp.WaitVisible(chromedp.CSS("#archiveEnabled")))
		Expect(tab.Text("#archiveRetentionDays-hint")).To(ContainSubstring("From 1 to 30 days on your plan"))
		Expect(tab.Text(`label[for="archiveRetentionDays"]`)).To(Equal("Keep for (days)"))
		var ticked bool
		tab.Eval(`document.querySelector("#archiveEnabled").checked`, &ticked)
		Expect(ticked).To(BeFalse())

		By("31 days is refused next to the field, and nothing is saved")
		tab.Do(chromedp.Click(chromedp.CSS("#archiveEnabled")), chromedp.SetValue(chromedp.CSS("#archiveRetentionDays"), "31"), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#archiveRetentionDays-error")))
		Expect(tab.Text("#archiveRetentionDays-error")).To(ContainSubstring("between 1 and 30"))
		Expect(tab.Attribute("#archiveRetentionDays", "aria-invalid")).To(Equal("true"))
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("archive", map[string]any{"enabled": false}))

		By("14 days is saved, shown again, and readable by the API")
		tab.Do(chromedp.SetValue(chromedp.CSS("#archiveRetentionDays"), "14"), save, chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("archive", map[string]any{"enabled": true, "retentionDays": 14.0}))
		tab.Eval(`document.querySelector("#archiveEnabled").checked`, &ticked)
		Expect(ticked).To(BeTrue(), "the box shows the saved setting")
		Expect(tab.Attribute("#archiveRetentionDays", "value")).To(Equal("14"))
		checkPage(tab, "form-settings-archive")

		By("unticking it turns the archive off")
		// The page already shows the last save's banner: take it away first, so
		// that waiting for one waits for the page this save loads (navigating
		// away while that load runs aborts it).
		tab.Eval(`document.querySelector(".banner-ok").remove()`, nil)
		tab.Do(chromedp.Click(chromedp.CSS("#archiveEnabled")), save, chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("archive", map[string]any{"enabled": false}))

		By("the Audit trail tab tells both changes in words")
		tab.Do(chromedp.Navigate(f.URL+"/dashboard/forms/"+id+"/audit"), chromedp.WaitVisible(chromedp.CSS("main")))
		page := tab.Text("main")
		Expect(page).To(ContainSubstring("on, 14 days"))
		Expect(page).To(ContainSubstring("off"))
	})
})
