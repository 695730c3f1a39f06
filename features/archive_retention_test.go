package features_test

import (
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Submissions archive retention", func() {
	It("keeps an archived submission, attachment included, sealed past its delivery until its retention ends, then shreds it to the same redacted record as an unarchived one", func() {
		// A formd of its own: the spec restarts it to run the sweeps.
		f := StartFormd()
		db := f.OpenDB()
		archivedForm := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"},
			"archive": map[string]any{"enabled": true, "retentionDays": 30}})
		plainForm := f.LiveFormOf(archivedForm.Token, archivedForm.OwnerEmail, map[string]any{"allowedDomains": []string{"example.com"}})

		f.Grant(archivedForm.OwnerEmail, "file_uploads")
		Expect(f.Patch(archivedForm.Token, "/v1/forms/"+archivedForm.ID, map[string]any{"uploadsEnabled": true}).Status).To(Equal(http.StatusOK))
		// The attachment's title is unique to this spec, so the scan after
		// shredding finds this file and never another's.
		fileMarker := "archived-file-" + randomHex(8)
		pdf := []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Title (" + fileMarker + ") >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")

		submit := func(lf LiveForm, marker string, files ...uploadPart) (submissionID string) {
			GinkgoHelper()
			r := f.Post("", "/submit/"+lf.AccessKey, multipartBody([]string{"name", "Ada", "message", "Call me " + marker}, files...),
				fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			m := mailWithID(f, lf.Recipient, r.JSON["deliveryId"].(string))
			Expect(m.Text).To(ContainSubstring(marker))
			Expect(m.Attachments).To(HaveLen(len(files)))
			return db.AcceptedByRequest(r.RequestID()).StreamID
		}
		archivedMarker, _, _ := strings.Cut(UniqueEmail("archived"), "@")
		plainMarker, _, _ := strings.Cut(UniqueEmail("plain"), "@")

		By("submitting to a form with the archive on (with an attachment) and to one without, both delivered")
		acceptedAt := time.Now()
		archived := submit(archivedForm, archivedMarker, uploadPart{Field: "cv", Filename: "archived-cv.pdf", ContentType: "application/pdf", Data: pdf})
		plain := submit(plainForm, plainMarker)

		By("the unarchived submission is shredded at its delivery, as always")
		Eventually(func() int { return db.PayloadCount(plain) }).WithTimeout(15 * time.Second).Should(BeZero())
		Expect(db.Events(`event_type = 'submission.redacted.v1' AND stream_id = $1`, plain)).To(HaveLen(1))

		By("the archived one keeps its sealed payload, every delivery final, until 30 days after it was accepted")
		Eventually(func() int {
			return db.Int(`SELECT count(*) FROM submission_payloads WHERE submission_id = $1 AND pending = 0`, archived)
		}).WithTimeout(15 * time.Second).Should(Equal(1))
		Expect(db.Events(`event_type = 'submission.redacted.v1' AND stream_id = $1`, archived)).To(BeEmpty())
		until := db.Int(`SELECT extract(epoch FROM archived_until)::bigint FROM submission_payloads WHERE submission_id = $1`, archived)
		Expect(time.Unix(int64(until), 0)).To(BeTemporally("~", acceptedAt.AddDate(0, 0, 30), time.Minute))
		Expect(db.CiphertextHolds(archived, archivedMarker)).To(BeFalse(), "kept sealed")
		Expect(db.TablesHolding(archivedMarker)).To(BeEmpty(), "no raw value anywhere while it is kept")
		Expect(db.TablesHolding(fileMarker)).To(BeEmpty(), "nor the attachment's content")

		By("a sweep before the end of its retention keeps it")
		f.Restart()
		Consistently(func() int { return db.PayloadCount(archived) }).WithTimeout(2 * time.Second).Should(Equal(1))

		By("the retention running out, and formd's sweep (at start, then hourly) shredding it")
		sealed := db.Text(`SELECT encode(substring(ciphertext FROM 1 FOR 32), 'hex') FROM submission_payloads WHERE submission_id = $1`, archived)
		wrapped := db.Text(`SELECT encode(wrapped_key, 'hex') FROM submission_payloads WHERE submission_id = $1`, archived)
		Expect(db.TablesHolding(sealed)).To(Equal([]string{"public.submission_payloads"}), "the scan finds the sealed bytes while they are kept")
		db.Exec(`UPDATE submission_payloads SET archived_until = now() - interval '1 minute' WHERE submission_id = $1`, archived)
		f.Restart()
		Eventually(func() int { return db.PayloadCount(archived) }).WithTimeout(15 * time.Second).Should(BeZero())
		Expect(db.Events(`event_type = 'submission.redacted.v1' AND stream_id = $1`, archived)).To(HaveLen(1))

		By("nothing of its payload is left anywhere in the database: no raw value, no file, no sealed byte, no wrapped key")
		Expect(db.TablesHolding(archivedMarker)).To(BeEmpty())
		Expect(db.TablesHolding(fileMarker)).To(BeEmpty())
		Expect(db.TablesHolding("archived-cv.pdf")).To(BeEmpty())
		Expect(db.TablesHolding(sealed)).To(BeEmpty())
		Expect(db.TablesHolding(wrapped)).To(BeEmpty())

		By("what remains is the same redacted record as the unarchived submission's")
		recordOf := func(submissionID string) []string {
			var types []string
			for _, e := range db.Events(`stream_id = $1`, submissionID) {
				types = append(types, e.Type)
			}
			return types
		}
		Expect(recordOf(archived)).To(Equal(recordOf(plain)))
		Expect(recordOf(archived)).To(Equal([]string{"submission.accepted.v1", "submission.redacted.v1"}))
		Expect(db.Int(`SELECT count(*) FROM deliveries WHERE submission_id = $1 AND status = 'succeeded'`, archived)).To(Equal(1))
	})
})
