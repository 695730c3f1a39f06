package features_test

import (
	"fmt"
	"net/http"

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
})
