package features_test

import (
	"net/http"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Submissions archive erasure", func() {
	It("erases a submitter's archived submissions by email and one by id, at once, to the redacted record, audited, under submissions:delete", func() {
		f := shared
		db := f.OpenDB()
		lf := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"},
			"archive": map[string]any{"enabled": true, "retentionDays": 30}})
		ws := lf.Form["workspaceId"].(string)
		a, b := UniqueEmail("erase-a"), UniqueEmail("erase-b")
		capitalA := strings.ToUpper(a[:1]) + a[1:]

		submit := func(email string) (submissionID, marker string) {
			GinkgoHelper()
			marker, _, _ = strings.Cut(UniqueEmail("said"), "@")
			r := f.Post("", "/submit/"+lf.AccessKey, map[string]any{"email": email, "message": "Call me " + marker}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			Expect(mailWithID(f, lf.Recipient, r.JSON["deliveryId"].(string)).Text).To(ContainSubstring(marker))
			id := db.AcceptedByRequest(r.RequestID()).StreamID
			Eventually(func() int {
				return db.Int(`SELECT count(*) FROM submission_payloads WHERE submission_id = $1 AND pending = 0`, id)
			}).WithTimeout(15*time.Second).Should(Equal(1), "kept, every delivery final")
			return id, marker
		}

		By("three submissions from one address (one typed capitalised) and one from another, delivered and archived")
		var ofA, saidByA []string
		for _, email := range []string{a, a, capitalA} {
			id, marker := submit(email)
			ofA, saidByA = append(ofA, id), append(saidByA, marker)
		}
		ofB, saidByB := submit(b)

		By("a token without submissions:delete being refused, naming the scope, and erasing nothing")
		without := f.TokenWith(lf.Token, ws, scopesBut("submissions:delete")...)
		ExpectError(f.Post(without.Secret, "/v1/forms/"+lf.ID+"/submissions/erase", map[string]any{"email": a}),
			http.StatusForbidden, "submissions:delete")
		ExpectError(f.Delete(without.Secret, "/v1/forms/"+lf.ID+"/submissions/"+ofB), http.StatusForbidden, "submissions:delete")
		Expect(db.PayloadCount(ofB)).To(Equal(1))

		By("an address that is not one being refused, naming the field")
		ExpectError(f.Post(lf.Token, "/v1/forms/"+lf.ID+"/submissions/erase", map[string]any{"email": "not an address"}),
			http.StatusBadRequest, "email")

		By("erasing by email with a token holding submissions:delete: the address as given and in lower case are found")
		eraser := f.TokenWith(lf.Token, ws, "submissions:delete")
		r := f.Post(eraser.Secret, "/v1/forms/"+lf.ID+"/submissions/erase", map[string]any{"email": "  " + capitalA + " "})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.JSON).To(Equal(map[string]any{"erased": 3.0, "pending": 0.0}))

		By("their payloads gone at once, each redacted as the retention sweep does, no raw value left; the other address's kept")
		for i, id := range ofA {
			Expect(db.PayloadCount(id)).To(BeZero())
			Expect(db.Events(`stream_id = $1 AND event_type = 'submission.redacted.v1'`, id)).To(HaveLen(1))
			Expect(db.TablesHolding(saidByA[i])).To(BeEmpty())
		}
		Expect(db.TablesHolding(a)).To(BeEmpty())
		Expect(db.TablesHolding(capitalA)).To(BeEmpty())
		Expect(db.PayloadCount(ofB)).To(Equal(1))
		Expect(db.Events(`stream_id = $1 AND event_type = 'submission.redacted.v1'`, ofB)).To(BeEmpty())
		Expect(db.CiphertextHolds(ofB, saidByB)).To(BeFalse(), "kept sealed")

		By("erasing the same address again finding nothing")
		r = f.Post(lf.Token, "/v1/forms/"+lf.ID+"/submissions/erase", map[string]any{"email": a})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.JSON).To(HaveKeyWithValue("erased", 0.0))

		By("erasing the other one by id, with the owner's session")
		r = f.Delete(lf.Token, "/v1/forms/"+lf.ID+"/submissions/"+ofB)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.JSON).To(Equal(map[string]any{"erased": 1.0}))
		Expect(db.PayloadCount(ofB)).To(BeZero())
		Expect(db.Events(`stream_id = $1 AND event_type = 'submission.redacted.v1'`, ofB)).To(HaveLen(1))
		Expect(db.TablesHolding(saidByB)).To(BeEmpty())

		By("404 for one already erased, an unknown id, and a submission of another account's form, alike")
		ExpectError(f.Delete(lf.Token, "/v1/forms/"+lf.ID+"/submissions/"+ofB), http.StatusNotFound)
		ExpectError(f.Delete(lf.Token, "/v1/forms/"+lf.ID+"/submissions/00000000-0000-4000-8000-000000000000"), http.StatusNotFound)
		ExpectError(f.Delete(lf.Token, "/v1/forms/"+lf.ID+"/submissions/not-an-id"), http.StatusNotFound)
		other := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"},
			"archive": map[string]any{"enabled": true, "retentionDays": 30}})
		ExpectError(f.Delete(lf.Token, "/v1/forms/"+other.ID+"/submissions/"+ofB), http.StatusNotFound)
		ExpectError(f.Post(lf.Token, "/v1/forms/"+other.ID+"/submissions/erase", map[string]any{"email": b}), http.StatusNotFound)

		By("what remains being the redacted record: the acceptance with field names and hashes, and the delivery's outcome")
		for _, id := range append(ofA, ofB) {
			var types []string
			for _, e := range db.Events(`stream_id = $1`, id) {
				types = append(types, e.Type)
			}
			Expect(types).To(Equal([]string{"submission.accepted.v1", "submission.redacted.v1"}))
			Expect(db.Int(`SELECT count(*) FROM deliveries WHERE submission_id = $1 AND status = 'succeeded'`, id)).To(Equal(1))
		}

		By("every erasure in the form's audit trail with its actor, request id and count, the address only by its hash")
		var erasures []map[string]any
		for _, ev := range f.Events(lf.Token, lf.ID) {
			if ev["type"] == "form.submissions_erased.v1" {
				erasures = append(erasures, ev)
			}
		}
		Expect(erasures).To(HaveLen(3))
		Expect(erasures[0]["changes"]).To(Equal([]any{map[string]any{"field": "submissions", "from": nil,
			"to": map[string]any{"erased": 3.0, "by": "email"}}}))
		Expect(erasures[0]["actor"]).To(HaveKeyWithValue("type", "token"))
		Expect(erasures[0]["requestId"]).NotTo(BeEmpty())
		Expect(erasures[1]["changes"].([]any)[0]).To(HaveKeyWithValue("to", map[string]any{"erased": 0.0, "by": "email"}))
		Expect(erasures[2]["changes"].([]any)[0]).To(HaveKeyWithValue("to", map[string]any{"erased": 1.0, "by": "id"}))
		stored := db.Events(`stream_id = $1 AND event_type = 'form.submissions_erased.v1'`, lf.ID)
		Expect(stored[0].Data).To(HaveKeyWithValue("emailHash", HaveLen(32)))
		Expect(stored[2].Data).To(HaveKeyWithValue("submissionId", ofB))

		By("the dashboard's Audit trail tab telling them in words, in Chromium")
		tab := NewTab()
		signIn(tab, f, lf.OwnerEmail)
		tab.Do(chromedp.Navigate(f.URL+"/dashboard/forms/"+lf.ID+"/audit"), chromedp.WaitVisible(chromedp.CSS("main")))
		Expect(tab.Text("main")).To(And(ContainSubstring("Submissions erased"), ContainSubstring("erased 3 submissions of a submitter"),
			ContainSubstring("erased 1 submission"), Not(ContainSubstring(a))))
		checkPage(tab, "form-audit-erasures")
	})

	It("erases nothing of a form without the archive: 0 by email, 404 by id, its submissions shredded at delivery as always", func() {
		f := shared
		db := f.OpenDB()
		lf := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"}})
		a := UniqueEmail("unarchived")
		r := f.Post("", "/submit/"+lf.AccessKey, map[string]any{"email": a, "message": "hello"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		mailWithID(f, lf.Recipient, r.JSON["deliveryId"].(string))
		id := db.AcceptedByRequest(r.RequestID()).StreamID
		Eventually(func() int { return db.PayloadCount(id) }).WithTimeout(15 * time.Second).Should(BeZero())

		r = f.Post(lf.Token, "/v1/forms/"+lf.ID+"/submissions/erase", map[string]any{"email": a})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.JSON).To(HaveKeyWithValue("erased", 0.0))
		ExpectError(f.Delete(lf.Token, "/v1/forms/"+lf.ID+"/submissions/"+id), http.StatusNotFound)
		Expect(db.Events(`stream_id = $1`, id)).To(HaveLen(2), "accepted and redacted, nothing more")
	})
})
