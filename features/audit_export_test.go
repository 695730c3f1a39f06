package features_test

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// auditBundle is the part of an auditor's bundle the specs read.
type auditBundle struct {
	Format, StreamType, StreamID, VerifierKey, Checkpoint string
	Events                                                []struct {
		LeafIndex      uint64
		Canonical      string
		Hash           []byte
		InclusionProof [][]byte
	}
}

// exportAudit is GET /v1/forms/{formId}/audit/export with token, asked
// again while it answers 503 (as its Retry-After says) or a bundle of fewer
// than events events: the latest checkpoint covers only the events whose
// transactions ended before every transaction still running began, so a
// long transaction elsewhere in the cluster holds it back.
func (f *Formd) exportAudit(token, formID string, events int) *Response {
	GinkgoHelper()
	var r *Response
	Eventually(func() bool {
		r = f.Get(token, "/v1/forms/"+formID+"/audit/export")
		return r.Status != http.StatusServiceUnavailable && (r.Status != http.StatusOK || bundleEvents(r.Body) >= events)
	}).WithTimeout(90*time.Second).WithPolling(time.Second).Should(BeTrue(), "the latest checkpoint covering the form's %d events", events)
	return r
}

// bundleEvents is how many events a bundle holds; 0 for anything else.
func bundleEvents(body []byte) int {
	var b auditBundle
	_ = json.Unmarshal(body, &b)
	return len(b.Events)
}

// expectBundleOf decodes body as the bundle of the form, with one event per
// version of the form, oldest first.
func expectBundleOf(body []byte, formID string, versions int) auditBundle {
	GinkgoHelper()
	Expect(body).To(HaveSuffix("\n"), "a bundle ends in a newline")
	var b auditBundle
	Expect(json.Unmarshal(body, &b)).To(Succeed(), "%s", body)
	Expect(b.Format).To(Equal("formd-audit-bundle/1"))
	Expect(b.StreamType).To(Equal("form"))
	Expect(b.StreamID).To(Equal(formID))
	Expect(b.VerifierKey).NotTo(BeEmpty())
	Expect(b.Checkpoint).NotTo(BeEmpty())
	Expect(b.Events).To(HaveLen(versions))
	for i, e := range b.Events {
		var canonical []any
		Expect(json.Unmarshal([]byte(e.Canonical), &canonical)).To(Succeed(), "%s", e.Canonical)
		Expect(canonical).To(HaveLen(8))
		Expect(canonical[:3]).To(Equal([]any{"form", formID, float64(i + 1)}), "event %d", i)
		Expect(e.Hash).To(HaveLen(32))
	}
	return b
}

var _ = Describe("Exporting a form's audit bundle", func() {
	var f *Formd

	BeforeEach(func() {
		f = shared
	})

	It("downloads the bundle of every version through the API and from the dashboard's audit trail, never another workspace's", func() {
		token, email := f.RegisteredVerifiedUser()
		form, _ := f.CreateForm(token, contactForm(nil))
		id := form["id"].(string)
		r := f.Patch(token, "/v1/forms/"+id, map[string]any{"name": "Contact us"})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		versions := 2
		Expect(f.FormByID(token, id)).To(HaveKeyWithValue("version", BeEquivalentTo(versions)))

		By("the API: a JSON download named after the form, one event per version")
		r = f.exportAudit(token, id, versions)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Header.Get("Content-Type")).To(Equal("application/json"))
		Expect(r.Header.Get("Content-Disposition")).To(Equal(`attachment; filename="formd-audit-` + id + `.json"`))
		bundle := expectBundleOf(r.Body, id, versions)

		By("a token of another account's workspace finding no such form")
		stranger, _ := f.RegisteredVerifiedUser()
		other := f.TokenWith(stranger, f.Workspaces(stranger)[0]["id"].(string), "forms:read")
		ExpectError(f.Get(other.Secret, "/v1/forms/"+id+"/audit/export"), http.StatusNotFound)

		By("the dashboard: Export audit bundle on the audit trail, with a word on what it is for")
		tab := NewTab()
		signIn(tab, f, email)
		tab.Do(chromedp.Navigate(f.URL + "/dashboard/forms/" + id + "/audit"))
		link := `a[href$="/forms/` + id + `/audit/export"]`
		Expect(tab.Text(link)).To(Equal("Export audit bundle"))
		Expect(tab.Text("#" + tab.Attribute(link, "aria-describedby"))).To(
			Equal("A signed file an auditor can check offline with formd audit verify --bundle."))
		checkPage(tab, "form-audit-export")

		By("the link downloading the same bundle with the browser's session")
		var download struct {
			Status      int
			Disposition string
			Body        string
		}
		// The checkpoint that covered the API's bundle covers this one too.
		tab.Eval(`fetch(document.querySelector('`+link+`').href).then(async r =>
			({status: r.status, disposition: r.headers.get("Content-Disposition"), body: await r.text()}))`, &download)
		Expect(download.Status).To(Equal(http.StatusOK), "%s", download.Body)
		Expect(download.Disposition).To(Equal(`attachment; filename="formd-audit-` + id + `.json"`))
		fromDashboard := expectBundleOf([]byte(download.Body), id, versions)
		Expect(fromDashboard.VerifierKey).To(Equal(bundle.VerifierKey))
		for i := range fromDashboard.Events {
			Expect(fromDashboard.Events[i].Hash).To(Equal(bundle.Events[i].Hash), "event %d", i)
		}
	})
})
