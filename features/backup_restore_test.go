package features_test

// Backup and restore (issue 36, item 7; docs/operations.md "Backup and
// restore"): a dump taken with pg_dump while formd runs, restored with
// pg_restore into a new database, serves again under the same key, and the
// deliveries it held queued go out.

import (
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Backup and restore", func() {
	It("restores a dump taken while formd runs, and delivers what it held queued once the key is the same", func() {
		// The form is set up with delivery workers (verification mails are
		// deliveries too); then a formd without them accepts submissions
		// whose mail stays queued.
		setup := StartFormd()
		key := envValue(setup.Env, "FORMD_SECRET_KEY")
		lf := setup.LiveForm(nil)
		setup.stop()
		running := setup.StartTwin("FORMD_DELIVERY_WORKERS=0")

		By("submissions accepted while their mail cannot go out yet")
		queued := map[string]string{} // delivery id → the marker its submission carried
		for i := range 3 {
			marker := fmt.Sprintf("queued before the backup %d %s", i+1, randomHex(4))
			r := running.Post("", "/submit/"+lf.AccessKey, map[string]any{"message": marker}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			queued[r.JSON["deliveryId"].(string)] = marker
		}

		By("a backup taken with pg_dump while formd runs, restored into two new databases")
		dump := filepath.Join(GinkgoT().TempDir(), "formd.dump")
		DumpCustom(running.DatabaseURL, dump)
		Expect(running.Session.ExitCode()).To(Equal(-1), "formd ran through the backup")
		withoutKey, withKey := RestoreCustom(dump), RestoreCustom(dump)

		By("a formd started on a restore without the key: each delivery waits for it, its payload kept")
		wrong := StartFormdOn(withoutKey)
		wrongDB := wrong.OpenDB()
		for id := range queued {
			Eventually(func() string { row, _ := wrongDB.Delivery(id); return row.Status }).
				WithTimeout(15*time.Second).WithPolling(50*time.Millisecond).Should(Equal("retrying"), "delivery %s", id)
			row, _ := wrongDB.Delivery(id)
			Expect(row.LastError).To(ContainSubstring("sealing key wrong or missing"))
		}
		Expect(wrongDB.Int(`SELECT count(*) FROM submission_payloads WHERE form_id = $1`, lf.ID)).To(Equal(len(queued)),
			"no payload is shredded for want of its key")
		Expect(wrong.Mail.To(lf.Recipient)).To(BeEmpty())

		By("a formd started on a restore with the same key: every queued delivery reaches the recipient, once")
		restored := StartFormdOn(withKey, "FORMD_SECRET_KEY="+key)
		for id, marker := range queued {
			Expect(mailWithID(restored, lf.Recipient, id).Text).To(ContainSubstring(marker))
		}
		for _, marker := range queued {
			Expect(mailsHolding(restored, lf.Recipient, marker)).To(Equal(1), "mails holding %q", marker)
		}
		Expect(running.Mail.To(lf.Recipient)).To(HaveLen(1), "the first formd sent only the recipient's verification")

		By("the owner signing in to the restored formd with their password")
		restored.Register(lf.OwnerEmail, DefaultPassword)
	})
})
