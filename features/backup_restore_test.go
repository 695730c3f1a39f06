package features_test

// Backup and restore (issue 36, item 7; docs/operations.md "Backup and
// restore"): a dump taken with pg_dump while formd runs, restored with
// pg_restore into a new database, serves again under the same key, and the
// deliveries it held queued go out.

import (
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Backup and restore", func() {
	It("restores a dump taken while formd accepts submissions, and delivers what it held queued once the key is the same", func() {
		// The form is set up with delivery workers (verification mails are
		// deliveries too); then a formd without them accepts submissions
		// whose mail stays queued.
		setup := StartFormd()
		key := envValue(setup.Env, "FORMD_SECRET_KEY")
		lf := setup.LiveForm(nil)
		setup.stop()
		running := setup.StartTwin("FORMD_DELIVERY_WORKERS=0")

		var mu sync.Mutex
		markers := map[string]string{} // delivery id → the marker its submission carried
		submit := func(label string) string {
			GinkgoHelper()
			marker := fmt.Sprintf("%s %s", label, randomHex(4))
			r := running.Post("", "/submit/"+lf.AccessKey, map[string]any{"message": marker}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			id := r.JSON["deliveryId"].(string)
			mu.Lock()
			defer mu.Unlock()
			markers[id] = marker
			return id
		}

		By("submissions accepted while their mail cannot go out yet")
		var beforeBackup []string
		for i := range 3 {
			beforeBackup = append(beforeBackup, submit(fmt.Sprintf("queued before the backup %d", i+1)))
		}

		By("a backup taken with pg_dump while formd accepts more, restored into two new databases")
		stopPosting, posted := make(chan struct{}), make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(posted)
			for i := 1; ; i++ {
				select {
				case <-stopPosting:
					return
				default:
					submit(fmt.Sprintf("posted during the backup %d", i))
				}
			}
		}()
		dump := filepath.Join(GinkgoT().TempDir(), "formd.dump")
		DumpCustom(running.DatabaseURL, dump)
		close(stopPosting)
		<-posted
		Expect(running.Session.ExitCode()).To(Equal(-1), "formd ran through the backup")
		running.stop()
		withoutKey, withKey := RestoreCustom(dump), RestoreCustom(dump)

		By("a formd started on a restore without the key: each delivery waits for it, its payload kept")
		wrong := StartFormdOn(withoutKey)
		wrongDB := wrong.OpenDB()
		restoredIDs := queuedSubmissionDeliveries(wrongDB, lf.ID)
		fmt.Fprintf(GinkgoWriter, "%d submissions accepted, %d of them in the dump\n", len(markers), len(restoredIDs))
		Expect(restoredIDs).To(ContainElements(beforeBackup), "what was accepted before the backup is in it")
		Expect(len(wrongDB.AcceptedSubmissions(lf.ID))).To(Equal(len(restoredIDs)),
			"one snapshot: each accepted submission in the dump has its delivery, and no delivery lacks its submission")
		Expect(wrongDB.Int(`SELECT count(*) FROM submission_payloads WHERE form_id = $1`, lf.ID)).To(Equal(len(restoredIDs)),
			"and its sealed payload")
		for _, id := range restoredIDs {
			Expect(markers).To(HaveKey(id), "delivery %s is one of the submissions posted", id)
			Eventually(func() string { row, _ := wrongDB.Delivery(id); return row.Status }).
				WithTimeout(15*time.Second).WithPolling(50*time.Millisecond).Should(Equal("retrying"), "delivery %s", id)
			row, _ := wrongDB.Delivery(id)
			Expect(row.LastError).To(ContainSubstring("sealing key wrong or missing"))
		}
		Expect(wrongDB.Int(`SELECT count(*) FROM submission_payloads WHERE form_id = $1`, lf.ID)).To(Equal(len(restoredIDs)),
			"no payload is shredded for want of its key")
		Expect(wrong.Mail.To(lf.Recipient)).To(BeEmpty())
		wrong.stop()

		By("a formd started on a restore with the same key: every queued delivery reaches the recipient, once")
		restored := StartFormdOn(withKey, "FORMD_SECRET_KEY="+key)
		for _, id := range restoredIDs {
			Expect(mailWithID(restored, lf.Recipient, id).Text).To(ContainSubstring(markers[id]))
		}
		for _, id := range restoredIDs {
			Expect(mailsHolding(restored, lf.Recipient, markers[id])).To(Equal(1), "mails holding %q", markers[id])
		}
		Expect(running.Mail.To(lf.Recipient)).To(HaveLen(1), "the first formd sent only the recipient's verification")

		By("the owner signing in to the restored formd with their password")
		restored.Register(lf.OwnerEmail, DefaultPassword)
	})

	It("attempts again after a restore a delivery that was in flight at the time of the dump, under the same Message-ID", func() {
		setup := StartFormd()
		key := envValue(setup.Env, "FORMD_SECRET_KEY")
		lf := setup.LiveForm(nil)
		setup.stop()
		stalled := StartStalledSMTP()
		sending := setup.StartTwin("FORMD_SMTP_URL=smtp://" + stalled.Addr + "?tls=none")
		db := sending.OpenDB()

		By("a delivery claimed by a worker whose mail server has not answered yet")
		marker := "in flight during the backup " + randomHex(4)
		r := sending.Post("", "/submit/"+lf.AccessKey, map[string]any{"message": marker}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		id := r.JSON["deliveryId"].(string)
		Eventually(func() int {
			return db.Int(`SELECT count(*) FROM deliveries WHERE id = $1 AND claimed_by IS NOT NULL AND status = 'queued'`, id)
		}).WithTimeout(10*time.Second).WithPolling(20*time.Millisecond).Should(Equal(1), "claimed")
		Eventually(stalled.Connections).WithTimeout(10*time.Second).Should(BeNumerically(">", 0), "the attempt is under way")

		By("a backup taken now, and the attempt ending after it")
		dump := filepath.Join(GinkgoT().TempDir(), "formd.dump")
		DumpCustom(sending.DatabaseURL, dump)
		stalled.Release()
		sending.stop()

		By("a formd on the restore attempting it again: the recipient can drop the duplicate by its Message-ID")
		restoredURL := RestoreCustom(dump)
		restoredDB := (&Formd{DatabaseURL: restoredURL}).OpenDB() // no formd runs on it yet
		Expect(restoredDB.Int(`SELECT count(*) FROM deliveries WHERE id = $1 AND claimed_by IS NOT NULL`, id)).To(Equal(1),
			"the dump holds the claim of a process that does not run here")
		// Stands in for the time a restore takes: longer than a process may
		// stay silent before its claims are released.
		restoredDB.Exec(`UPDATE delivery_workers SET seen_at = seen_at - interval '1 minute'`)
		restored := StartFormdOn(restoredURL, "FORMD_SECRET_KEY="+key)
		Expect(mailWithID(restored, lf.Recipient, id).Text).To(ContainSubstring(marker))
	})
})

// queuedSubmissionDeliveries is the ids of the deliveries of a form's
// submissions in a database (not the recipient's verification mail).
func queuedSubmissionDeliveries(db *DB, formID string) []string {
	GinkgoHelper()
	ctx, cancel := dbContext()
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT id::text FROM deliveries WHERE form_id = $1 AND submission_id IS NOT NULL ORDER BY created_at`, formID)
	Expect(err).NotTo(HaveOccurred())
	var ids []string
	for rows.Next() {
		var id string
		Expect(rows.Scan(&id)).To(Succeed())
		ids = append(ids, id)
	}
	Expect(rows.Err()).NotTo(HaveOccurred())
	return ids
}
