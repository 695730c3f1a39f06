package features_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/formd/formd/adapters/akismet/akismettest"
)

// Akismet is the alternative classifier: the same spam gate, asking
// Akismet's comment-check (here a local double of it, which calls content
// holding Akismet's test marker spam) instead of rspamd.
var _ = Describe("Spam classifier (Akismet)", func() {
	It("in tag mode delivers a message Akismet calls spam marked, and a normal message unmarked", func() {
		const key, site = "formd-akismet-test-key", "https://shop.example"
		double := akismettest.Start(key)
		DeferCleanup(double.Close)
		f := StartFormd("FORMD_AKISMET_KEY="+key, "FORMD_AKISMET_SITE="+site, "FORMD_AKISMET_URL="+double.URL)
		lf := f.LiveForm(spamPolicy("tag", nil))

		r := postMessage(f, lf, "Cheap pills, ask for "+akismettest.SpamMarker)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(f.Mail.WaitForMail(lf.Recipient).Subject).To(Equal("[SPAM] Hello"))

		By("Akismet was asked about a contact form comment from the site's key")
		seen := double.Requests()
		Expect(seen).To(HaveLen(1))
		Expect(seen[0].Path).To(Equal("/1.1/comment-check"))
		Expect(seen[0].Form.Get("blog")).To(Equal(site))
		Expect(seen[0].Form.Get("comment_type")).To(Equal("contact-form"))
		Expect(seen[0].Form.Get("comment_content")).To(ContainSubstring(akismettest.SpamMarker))

		By("a normal message is classified and delivered as it is")
		r = postMessage(f, lf, "I would like a quote for a new garden fence, about twenty metres. Thank you, Ada")
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		d := f.Get(lf.Token, "/v1/deliveries/"+r.JSON["deliveryId"].(string))
		Expect(d.Status).To(Equal(http.StatusOK), "%s", d)
		Expect(d.Array("events")[0]).To(HaveKeyWithValue("spamCheck", "checked"))
		Expect(f.Mail.WaitForMail(lf.Recipient).Subject).To(Equal("Hello"))

		By("the dry run's trace names Akismet's verdict")
		r = postMessage(f, lf, "Cheap pills, ask for "+akismettest.SpamMarker, dryRunHeader("true"))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(gateMessage(r, "spam")).To(And(ContainSubstring("classifier spam, score 1"), ContainSubstring("AKISMET_SPAM")))
	})
})
