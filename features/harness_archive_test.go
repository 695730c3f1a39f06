package features_test

import (
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// archivedLiveForm is a live form of a new account that archives its
// submissions for 30 days, takes posts from example.com and accepts files.
func archivedLiveForm(f *Formd) LiveForm {
	GinkgoHelper()
	lf := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"},
		"archive": map[string]any{"enabled": true, "retentionDays": 30}})
	f.Grant(lf.OwnerEmail, "file_uploads")
	Expect(f.Patch(lf.Token, "/v1/forms/"+lf.ID, map[string]any{"uploadsEnabled": true}).Status).To(Equal(http.StatusOK))
	return lf
}

// submitArchived posts body to lf from example.com, waits for its
// notification and for every delivery to be final, its payload kept, and
// returns its submission and request ids.
func submitArchived(f *Formd, db *DB, lf LiveForm, body RawBody) (id, requestID string) {
	GinkgoHelper()
	r := f.Post("", "/submit/"+lf.AccessKey, body, fromExampleCom())
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	mailWithID(f, lf.Recipient, r.JSON["deliveryId"].(string))
	id = db.AcceptedByRequest(r.RequestID()).StreamID
	Eventually(func() int {
		return db.Int(`SELECT count(*) FROM submission_payloads WHERE submission_id = $1 AND pending = 0`, id)
	}).WithTimeout(15*time.Second).Should(Equal(1), "kept, every delivery final")
	return id, r.RequestID()
}
