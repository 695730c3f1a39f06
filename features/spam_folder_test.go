package features_test

import (
	"crypto/rand"
	"math/big"
	"net/http"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// testRspamdController is the suite's rspamd controller and its password
// (scripts/ensure-rspamd.sh), which learning needs.
func testRspamdController() []string {
	GinkgoHelper()
	url, password := os.Getenv("FORMD_TEST_RSPAMD_CONTROLLER_URL"), os.Getenv("FORMD_TEST_RSPAMD_PASSWORD")
	if url == "" || password == "" {
		Fail("FORMD_TEST_RSPAMD_CONTROLLER_URL and FORMD_TEST_RSPAMD_PASSWORD are not set: run the suite with make features")
	}
	return []string{"FORMD_RSPAMD_CONTROLLER_URL=" + url, "FORMD_RSPAMD_PASSWORD=" + password}
}

// spamFolder is the API path of a form's Spam folder.
func spamFolder(formID string) string { return "/v1/forms/" + formID + "/spam" }

// holdGTUBE submits the GTUBE message to a hold-mode form and returns the
// submission's id as the Spam folder lists it, with the answer, which is
// a live one's.
func holdGTUBE(f *Formd, lf LiveForm) (string, *Response) {
	GinkgoHelper()
	r := postMessage(f, lf, "Please read: "+gtube)
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	Expect(r.JSON).To(HaveKeyWithValue("message", "Email sent successfully!"))
	Expect(r.JSON).To(HaveKeyWithValue("deliveryId", Not(BeEmpty())), "a held submission is answered as any other")
	page := f.Get(lf.Token, spamFolder(lf.ID))
	Expect(page.Status).To(Equal(http.StatusOK), "%s", page)
	for _, s := range page.Array("submissions") {
		if held := s.(map[string]any); held["requestId"] == r.JSON["requestId"] {
			return held["id"].(string), r
		}
	}
	Fail("the held submission is not in the Spam folder: " + page.String())
	return "", nil
}

var _ = Describe("Spam folder", Ordered, func() {
	var f *Formd
	var db *DB

	BeforeAll(func() {
		f = StartFormd(append(testRspamdController(), "FORMD_RSPAMD_URL="+testRspamdURL())...)
		db = f.OpenDB()
	})

	It("in hold mode keeps the GTUBE message out of the inbox and in the Spam folder, sealed, and delivers a normal one", func() {
		lf := f.LiveForm(spamPolicy("hold", nil))
		id, r := holdGTUBE(f, lf)

		By("nothing is queued or sent")
		Expect(db.Int(`SELECT count(*) FROM deliveries WHERE submission_id = $1`, id)).To(BeZero())
		Consistently(func() []Mail { return f.Mail.To(lf.Recipient) }).WithTimeout(time.Second).Should(HaveLen(1), "only the verification mail")

		By("the folder shows it with the verdict and its content; the payload is sealed in the database")
		page := f.Get(lf.Token, spamFolder(lf.ID))
		Expect(page.JSON).To(HaveKeyWithValue("total", 1.0))
		held := page.Array("submissions")[0].(map[string]any)
		Expect(held).To(HaveKeyWithValue("reasons", ContainElement(ContainSubstring("GTUBE"))))
		Expect(held).To(HaveKeyWithValue("submitterEmail", "ada@example.org"))
		Expect(held["fields"]).To(ContainElement(map[string]any{"name": "message", "value": "Please read: " + gtube}))
		Expect(held["heldUntil"]).NotTo(BeEmpty())
		Expect(db.Int(`SELECT count(*) FROM submission_payloads WHERE submission_id = $1 AND held_until > now() + interval '29 days'
			AND position('GTUBE'::bytea in ciphertext) = 0`, id)).To(Equal(1))
		one := f.Get(lf.Token, spamFolder(lf.ID)+"/"+id)
		Expect(one.Status).To(Equal(http.StatusOK), "%s", one)
		Expect(one.JSON).To(HaveKeyWithValue("requestId", r.JSON["requestId"]))
		Expect(one.JSON["formVersion"]).To(Equal(f.FormByID(lf.Token, lf.ID)["version"]), "the version of the form that held it")
		Expect(db.Int(`SELECT count(*) FROM submission_accesses WHERE form_id = $1 AND filters->>'folder' = 'spam'`, lf.ID)).To(Equal(3),
			"every read of the folder is in the access log")

		By("the dry run's gate trace says it would be held")
		dry := postMessage(f, lf, gtube, dryRunHeader("true"))
		Expect(gateMessage(dry, "spam")).To(HavePrefix("held in the Spam folder"))

		By("a normal message is delivered at once")
		ok := postMessage(f, lf, "Could you send me the opening hours of the shop for December? Thanks, Ada")
		Expect(ok.Status).To(Equal(http.StatusOK), "%s", ok)
		Expect(f.Mail.WaitForMail(lf.Recipient).Subject).To(Equal("Hello"))
		Expect(f.Get(lf.Token, spamFolder(lf.ID)).JSON).To(HaveKeyWithValue("total", 1.0))
	})

	It("releases a held submission as not spam: its planned deliveries go out unmarked, under the ids the submitter was given", func() {
		lf := f.LiveForm(spamPolicy("hold", nil))
		id, r := holdGTUBE(f, lf)

		rel := f.Post(lf.Token, spamFolder(lf.ID)+"/"+id+"/not-spam", nil)
		Expect(rel.Status).To(Equal(http.StatusOK), "%s", rel)
		Expect(rel.JSON).To(HaveKeyWithValue("verdict", "not_spam"))
		Expect(rel.JSON).To(HaveKeyWithValue("learned", true))
		Expect(rel.JSON).To(HaveKeyWithValue("deliveryIds", ContainElement(r.JSON["deliveryId"])))
		m := f.Mail.WaitForMail(lf.Recipient)
		Expect(m.Subject).To(Equal("Hello"), "released as not spam: no marker")
		Expect(m.Text).To(ContainSubstring(gtube))
		Eventually(func() int {
			return db.Int(`SELECT count(*) FROM deliveries WHERE id = $1 AND status = 'succeeded'`, r.JSON["deliveryId"])
		}).Should(Equal(1))

		By("it left the folder, and its payload is shredded once delivered, as any other's")
		Expect(f.Get(lf.Token, spamFolder(lf.ID)).JSON).To(HaveKeyWithValue("total", 0.0))
		Eventually(func() int { return db.Int(`SELECT count(*) FROM submission_payloads WHERE submission_id = $1`, id) }).Should(BeZero())
		again := f.Post(lf.Token, spamFolder(lf.ID)+"/"+id+"/not-spam", nil)
		Expect(again.Status).To(Equal(http.StatusNotFound), "%s", again)

		By("the review is in the form's audit trail")
		var reviews []map[string]any
		for _, ev := range f.Events(lf.Token, lf.ID) {
			if ev["type"] == "form.spam_reviewed.v1" {
				reviews = append(reviews, ev)
			}
		}
		Expect(reviews).To(HaveLen(1))
		Expect(reviews[0]["changes"]).To(Equal([]any{map[string]any{"field": "spamFolder", "from": nil,
			"to": map[string]any{"submissionId": id, "verdict": "not_spam", "learned": true}}}))
	})

	It("shreds a held submission marked spam, and one deleted, delivering nothing", func() {
		lf := f.LiveForm(spamPolicy("hold", nil))
		spam, _ := holdGTUBE(f, lf)
		deleted, _ := holdGTUBE(f, lf)

		r := f.Post(lf.Token, spamFolder(lf.ID)+"/"+spam+"/spam", nil)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.JSON).To(HaveKeyWithValue("verdict", "spam"))
		Expect(r.JSON).To(HaveKeyWithValue("learned", true))
		r = f.Delete(lf.Token, spamFolder(lf.ID)+"/"+deleted)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.JSON).To(HaveKeyWithValue("verdict", "deleted"))
		Expect(r.JSON).To(HaveKeyWithValue("learned", false))

		for _, id := range []string{spam, deleted} {
			Expect(db.Int(`SELECT count(*) FROM submission_payloads WHERE submission_id = $1`, id)).To(BeZero())
			Expect(db.Int(`SELECT count(*) FROM deliveries WHERE submission_id = $1`, id)).To(BeZero())
			Expect(f.Get(lf.Token, spamFolder(lf.ID)+"/"+id).Status).To(Equal(http.StatusNotFound))
			var types []string
			for _, e := range db.Events(`stream_id = $1`, id) {
				types = append(types, e.Type)
			}
			Expect(types).To(Equal([]string{"submission.accepted.v1", "submission.redacted.v1"}))
		}
		Expect(f.Get(lf.Token, spamFolder(lf.ID)).JSON).To(HaveKeyWithValue("total", 0.0))
		Consistently(func() []Mail { return f.Mail.To(lf.Recipient) }).WithTimeout(time.Second).Should(HaveLen(1), "only the verification mail")
	})
})

// words are n random lower-case words of nine letters: a vocabulary no other
// spec or run shares, so what rspamd's Bayes learns from it is this spec's.
func words(n int) []string {
	out := make([]string, n)
	for i := range out {
		b := make([]byte, 9)
		for j := range b {
			k, err := rand.Int(rand.Reader, big.NewInt(26))
			Expect(err).NotTo(HaveOccurred())
			b[j] = byte('a' + k.Int64())
		}
		out[i] = string(b)
	}
	return out
}

// prose is a message of 60 words drawn from vocabulary, differing per seed.
func prose(vocabulary []string, seed int) string {
	out := make([]string, 60)
	for i := range out {
		out[i] = vocabulary[(i*7+seed*13+i*i*seed)%len(vocabulary)]
	}
	return strings.Join(out, " ")
}

var _ = Describe("Spam folder teaching rspamd", func() {
	It("after the owner marks held messages spam and not spam, a similar new message gets the Bayes spam symbol", func() {
		f := StartFormd(append(testRspamdController(), "FORMD_RSPAMD_URL="+testRspamdURL())...)
		// A word the rule holds on, so the owner has messages to judge
		// whatever rspamd makes of them before it learned anything.
		marker := words(1)[0]
		lf := f.LiveForm(spamPolicy("hold", map[string]any{"blockWords": []string{marker}}))
		spamWords, hamWords := words(30), words(30)
		similar := prose(spamWords, 9)

		trace := func() string {
			GinkgoHelper()
			r := postMessage(f, lf, similar, dryRunHeader("true"))
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			return gateMessage(r, "spam")
		}
		Expect(trace()).NotTo(ContainSubstring("BAYES_SPAM"), "before learning")

		judge := func(message, verdict string) {
			GinkgoHelper()
			r := postMessage(f, lf, message+" "+marker)
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			page := f.Get(lf.Token, spamFolder(lf.ID))
			var id string
			for _, s := range page.Array("submissions") {
				if held := s.(map[string]any); held["requestId"] == r.JSON["requestId"] {
					id = held["id"].(string)
				}
			}
			Expect(id).NotTo(BeEmpty(), "held: %s", page)
			rev := f.Post(lf.Token, spamFolder(lf.ID)+"/"+id+"/"+verdict, nil)
			Expect(rev.Status).To(Equal(http.StatusOK), "%s", rev)
			Expect(rev.JSON).To(HaveKeyWithValue("learned", true))
		}
		// rspamd classifies once each class has min_learns (2, the test
		// configuration's) messages.
		for i := range 3 {
			judge(prose(spamWords, i), "spam")
		}
		for i := range 2 {
			judge(prose(hamWords, i), "not-spam")
		}
		Expect(trace()).To(ContainSubstring("BAYES_SPAM"), "after the owner's marks")
	})

	It("carries out a review rspamd cannot be taught, saying it did not learn", func() {
		f := StartFormd("FORMD_RSPAMD_URL="+testRspamdURL(), "FORMD_RSPAMD_CONTROLLER_URL=http://127.0.0.1:"+freePort(),
			"FORMD_RSPAMD_PASSWORD=formd-test-password")
		lf := f.LiveForm(spamPolicy("hold", nil))
		id, r := holdGTUBE(f, lf)
		rel := f.Post(lf.Token, spamFolder(lf.ID)+"/"+id+"/not-spam", nil)
		Expect(rel.Status).To(Equal(http.StatusOK), "%s", rel)
		Expect(rel.JSON).To(HaveKeyWithValue("learned", false))
		Expect(rel.JSON).To(HaveKeyWithValue("deliveryIds", ContainElement(r.JSON["deliveryId"])))
		Expect(f.Mail.WaitForMail(lf.Recipient).Subject).To(Equal("Hello"))
	})
})
