package features_test

import (
	"net/http"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// spamLinkPattern is the "this was spam" link of a notification mail.
var spamLinkPattern = regexp.MustCompile(`Was this spam\? Mark it, so the spam filter learns: (http://[^\s"'<>]+/spam/[A-Za-z0-9_.-]+)`)

// spamLinkIn is the spam link of the notification mail m; the spec fails
// when it has none.
func spamLinkIn(m Mail) string {
	GinkgoHelper()
	found := spamLinkPattern.FindStringSubmatch(m.Text)
	Expect(found).To(HaveLen(2), "a spam link in %q", m.Text)
	return found[1]
}

var _ = Describe("Marking spam from a notification mail", Ordered, func() {
	var f *Formd
	var db *DB

	BeforeAll(func() {
		f = StartFormd(append(testRspamdController(), "FORMD_RSPAMD_URL="+testRspamdURL())...)
		db = f.OpenDB()
	})

	// spamReviews counts the form's form.spam_reviewed.v1 events whose
	// actor is the mail link and whose learned flag is learned.
	spamReviews := func(formID, submissionID string, learned bool) int {
		return db.Int(`SELECT count(*) FROM events WHERE stream_id = $1 AND event_type = 'form.spam_reviewed.v1'
			AND data->>'submissionId' = $2 AND data->>'verdict' = 'spam' AND (data->>'learned')::boolean = $3
			AND metadata->'actor'->>'type' = 'mail_link'`, formID, submissionID, learned)
	}

	It("teaches the filter from an archived submission: the link opens a page that changes nothing, its button marks", func() {
		lf := f.LiveForm(map[string]any{"spam": map[string]any{"mode": "tag"}, "archive": map[string]any{"enabled": true, "retentionDays": 30}})
		r := postMessage(f, lf, "Could you tell me whether the blue kettle is back in stock next week? Thanks, Ada")
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		m := f.Mail.WaitForMail(lf.Recipient)
		Expect(m.Subject).To(Equal("Hello"), "a normal message is not tagged")
		link := spamLinkIn(m)
		id := db.String(`SELECT submission_id::text FROM deliveries WHERE id = $1`, r.JSON["deliveryId"])

		By("opening the link shows the question and a button, and marks nothing")
		page := f.OpenLink(link)
		Expect(string(page.Body)).To(ContainSubstring("Mark this submission as spam?"))
		german := f.Get("", link, Header("Accept-Language", "de"))
		Expect(string(german.Body)).To(SatisfyAll(ContainSubstring("Diese Einsendung als Spam markieren?"), ContainSubstring("Als Spam markieren</button>")),
			"the page in the browser's language")
		Expect(spamReviews(lf.ID, id, true) + spamReviews(lf.ID, id, false)).To(BeZero())

		By("the button marks it: learned from the archived content, which stays")
		done := f.ConfirmLink(link)
		Expect(done.Status).To(Equal(http.StatusOK), "%s", done)
		Expect(string(done.Body)).To(ContainSubstring("the spam filter learned from it"))
		Expect(spamReviews(lf.ID, id, true)).To(Equal(1))
		Expect(db.Int(`SELECT count(*) FROM submission_payloads WHERE submission_id = $1`, id)).To(Equal(1), "the archive keeps it")
		var reviewed []any
		for _, ev := range f.Events(lf.Token, lf.ID) {
			if ev["type"] == "form.spam_reviewed.v1" {
				reviewed = append(reviewed, ev["changes"])
			}
		}
		Expect(reviewed).To(Equal([]any{[]any{map[string]any{"field": "spamFolder", "from": nil,
			"to": map[string]any{"submissionId": id, "verdict": "spam", "learned": true}}}}))

		By("following it again records nothing new")
		again := f.ConfirmLink(link)
		Expect(again.Status).To(Equal(http.StatusOK), "%s", again)
		Expect(string(again.Body)).To(ContainSubstring("already marked as spam"))
		Expect(spamReviews(lf.ID, id, true) + spamReviews(lf.ID, id, false)).To(Equal(1))

		By("an altered link is refused with a page that says so, marking nothing")
		cut := strings.LastIndex(link, ".") + 1
		flipped := map[bool]string{true: "B", false: "A"}[link[cut] == 'A']
		altered := link[:cut] + flipped + link[cut+1:]
		for _, bad := range []*Response{f.Get("", altered), f.ConfirmLink(altered)} {
			Expect(bad.Status).To(Equal(http.StatusBadRequest), "%s", bad)
			Expect(string(bad.Body)).To(ContainSubstring("This spam link is not valid"))
		}
	})

	It("records the judgement of a submission formd no longer keeps, and says the archive would let the filter learn", func() {
		lf := f.LiveForm(spamPolicy("tag", nil))
		r := postMessage(f, lf, "Hello, I would like to book a table for four on Friday evening. Regards, Ada")
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		link := spamLinkIn(f.Mail.WaitForMail(lf.Recipient))
		id := db.String(`SELECT submission_id::text FROM deliveries WHERE id = $1`, r.JSON["deliveryId"])
		Eventually(func() int { return db.Int(`SELECT count(*) FROM submission_payloads WHERE submission_id = $1`, id) }).Should(BeZero(),
			"without the archive, the payload is shredded once delivered")

		done := f.FollowLink(link)
		Expect(done.Status).To(Equal(http.StatusOK), "%s", done)
		Expect(string(done.Body)).To(ContainSubstring("formd no longer keeps this submission"))
		Expect(string(done.Body)).To(ContainSubstring("archive"))
		Expect(spamReviews(lf.ID, id, false)).To(Equal(1))
	})

	It("offers no link in the mails of a form whose spam gate is off", func() {
		lf := f.LiveForm(nil)
		Expect(postMessage(f, lf, "Just saying hello.").Status).To(Equal(http.StatusOK))
		Expect(f.Mail.WaitForMail(lf.Recipient).Text).NotTo(ContainSubstring("/spam/"))
	})
})
