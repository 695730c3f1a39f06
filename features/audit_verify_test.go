package features_test

// The audit log as evidence (issue 39): every event is chained to its
// stream when it is appended, signed checkpoints cover the whole log, and
// `formd audit verify` names the first event of each stream, and each
// checkpoint, that no longer matches (docs/audit.md).

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/note"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// auditVerify runs `formd audit verify` on f's database and returns its
// output once it exited with code.
func (f *Formd) auditVerify(code int) string {
	GinkgoHelper()
	return f.audit(code, "verify")
}

// audit runs `formd audit <args>` with f's configuration and returns its
// output once it exited with code.
func (f *Formd) audit(code int, args ...string) string {
	GinkgoHelper()
	cmd := exec.Command(formdBinary, append([]string{"audit"}, args...)...)
	cmd.Env = append(baseEnv(), f.Env...)
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	Eventually(s).WithTimeout(30*time.Second).Should(gexec.Exit(code), "formd audit %v", args)
	return string(s.Out.Contents()) + string(s.Err.Contents())
}

// checkpointAll runs `formd audit checkpoint` until the latest checkpoint
// covers every stored event (a transaction open anywhere on the cluster,
// another spec's say, holds back what a checkpoint may cover).
func (f *Formd) checkpointAll(db *DB) {
	GinkgoHelper()
	Eventually(func() int {
		f.audit(0, "checkpoint")
		return db.Int(`SELECT count(*)::int FROM events`) - db.Int(`SELECT coalesce(max(tree_size), 0)::int FROM audit_checkpoints`)
	}).WithTimeout(30*time.Second).WithPolling(100*time.Millisecond).Should(BeZero(), "every event checkpointed")
}

// tamper changes the events table as someone holding the database's keys
// could: with its triggers switched off for the statement.
func (db *DB) tamper(statement string) {
	GinkgoHelper()
	db.Exec(`BEGIN; SET LOCAL session_replication_role = replica; ` + statement + `; COMMIT`)
}

var _ = Describe("Audit log verification with formd audit verify", func() {
	It("passes an untouched log, and names the first event of each stream changed, deleted, swapped or unchained by SQL", func() {
		published := GinkgoT().TempDir()
		f := StartFormd("FORMD_AUDIT_CHECKPOINT_DIR=" + published)
		db := f.OpenDB()
		// Five forms, each with a history of four events: created, then
		// three setting changes.
		var forms []LiveForm
		for range 5 {
			lf := f.LiveForm(nil)
			for i := range 3 {
				r := f.Patch(lf.Token, "/v1/forms/"+lf.ID, map[string]any{"subjectDefault": fmt.Sprintf("Subject %d", i)})
				Expect(r.JSON).To(HaveKey("form"), "%s", r)
			}
			forms = append(forms, lf)
		}
		f.checkpointAll(db)
		out := f.auditVerify(0)
		Expect(out).To(ContainSubstring("every chain and checkpoint matches the events"))
		Expect(out).NotTo(ContainSubstring("FINDING"))
		By("finding each checkpoint published as a file, signed by the configured key")
		size := db.Int(`SELECT max(tree_size)::int FROM audit_checkpoints`)
		file, err := os.ReadFile(filepath.Join(published, fmt.Sprintf("%d.checkpoint", size)))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(file)).To(Equal(db.String(`SELECT signed_note FROM audit_checkpoints WHERE tree_size = $1`, size)))
		Expect(string(file)).To(HavePrefix(fmt.Sprintf("formd-test/audit\n%d\n", size)))
		leaf := func(i, v int) int {
			return db.Int(`SELECT l.leaf_index::int FROM audit_leaves l JOIN events e USING (global_position) WHERE e.stream_id = $1 AND e.version = $2`, forms[i].ID, v)
		}

		version := func(lf LiveForm, eventType string) int {
			return db.Int(`SELECT min(version) FROM events WHERE stream_id = $1 AND event_type = $2`, lf.ID, eventType)
		}
		changed := version(forms[0], "form.settings_changed.v1")
		position := func(lf LiveForm, v int) int {
			return db.Int(`SELECT global_position::int FROM events WHERE stream_id = $1 AND version = $2`, lf.ID, v)
		}
		where := func(i, v int) string { return fmt.Sprintf("stream_id = '%s' AND version = %d", forms[i].ID, v) }
		expected := []string{}
		finding := func(i, v int, eventType, problem string) {
			expected = append(expected, fmt.Sprintf("FINDING form stream %s, version %d (%s, log position %d): %s",
				forms[i].ID, v, eventType, position(forms[i], v), problem))
		}

		By("changing an event's data")
		finding(0, changed, "form.settings_changed.v1", "its hash does not match its content")
		db.tamper(`UPDATE events SET data = jsonb_set(data, '{changes,0,to}', '"Forged"') WHERE ` + where(0, changed))
		By("changing an event's metadata: who did it")
		finding(1, changed, "form.settings_changed.v1", "its hash does not match its content")
		db.tamper(`UPDATE events SET metadata = jsonb_set(metadata, '{actor,id}', '"someone-else"') WHERE ` + where(1, changed))
		By("swapping two events")
		finding(2, changed, "form.settings_changed.v1", "its hash does not match its content")
		db.tamper(fmt.Sprintf(`UPDATE events e SET data = o.data, metadata = o.metadata, recorded_at = o.recorded_at FROM events o
			WHERE e.stream_id = '%[1]s' AND o.stream_id = '%[1]s' AND (e.version, o.version) IN ((%[2]d, %[3]d), (%[3]d, %[2]d))`,
			forms[2].ID, changed, changed+1))
		By("removing an event's hash")
		finding(4, changed, "form.settings_changed.v1", "it is not chained, but a later event of its stream is")
		// The checkpoints hold the hash it had.
		finding(4, changed, "form.settings_changed.v1", fmt.Sprintf("its hash is not the one checkpointed as leaf %d", leaf(4, changed)))
		db.tamper(`UPDATE events SET hash = NULL WHERE ` + where(4, changed))
		By("deleting an event")
		deleted := fmt.Sprintf("FINDING stream %s, version %d (log position %d): it is leaf %d of the checkpointed log but is no longer stored: it was deleted",
			forms[3].ID, changed, position(forms[3], changed), leaf(3, changed))
		db.tamper(`DELETE FROM events WHERE ` + where(3, changed))

		out = f.auditVerify(2)
		for _, e := range expected {
			Expect(out).To(ContainSubstring(e))
		}
		Expect(out).To(ContainSubstring(fmt.Sprintf("FINDING form stream %s, version %d: version %d is missing", forms[3].ID, changed, changed)))
		Expect(out).To(ContainSubstring(deleted))
		Expect(strings.Count(out, "FINDING")).To(Equal(7), "one finding per tampered stream, and the checkpoints' own for the removed hash and the deleted event:\n%s", out)
	})

	It("names the deleted last event of a stream, which no chain can, a rewritten chain, and a checkpoint signed by another key", func() {
		f := StartFormd()
		db := f.OpenDB()
		a, b := f.LiveForm(nil), f.LiveForm(nil)
		for _, lf := range []LiveForm{a, b} {
			r := f.Patch(lf.Token, "/v1/forms/"+lf.ID, map[string]any{"subjectDefault": "Before the checkpoint"})
			Expect(r.JSON).To(HaveKey("form"), "%s", r)
		}
		f.checkpointAll(db)
		last := db.Int(`SELECT max(version) FROM events WHERE stream_id = $1`, a.ID)
		position := db.Int(`SELECT global_position::int FROM events WHERE stream_id = $1 AND version = $2`, a.ID, last)
		leaf := db.Int(`SELECT leaf_index::int FROM audit_leaves WHERE global_position = $1`, position)
		size := db.Int(`SELECT max(tree_size)::int FROM audit_checkpoints`)

		By("deleting the last event of a stream: its chain still holds")
		db.tamper(fmt.Sprintf(`DELETE FROM events WHERE stream_id = '%s' AND version = %d`, a.ID, last))
		By("changing an event and rewriting its stream's chain after it, as someone who knows the chain's rule would")
		bLast := db.Int(`SELECT max(version) FROM events WHERE stream_id = $1`, b.ID)
		bPosition := db.Int(`SELECT global_position::int FROM events WHERE stream_id = $1 AND version = $2`, b.ID, bLast)
		db.tamper(fmt.Sprintf(`UPDATE events e SET data = jsonb_set(data, '{changes,0,to}', '"Forged"') WHERE stream_id = '%s' AND version = %d`, b.ID, bLast))
		db.tamper(fmt.Sprintf(`UPDATE events e SET hash = sha256(p.hash || event_canonical(e)) FROM events p
			WHERE e.stream_id = '%[1]s' AND e.version = %[2]d AND p.stream_id = '%[1]s' AND p.version = %[2]d - 1`, b.ID, bLast))
		By("replacing the latest checkpoint with the same statement signed by another key")
		skey, _, err := note.GenerateKey(rand.Reader, "formd-test/audit")
		Expect(err).NotTo(HaveOccurred())
		signer, err := note.NewSigner(skey)
		Expect(err).NotTo(HaveOccurred())
		text := db.String(`SELECT signed_note FROM audit_checkpoints WHERE tree_size = $1`, size)
		body, _, _ := strings.Cut(text, "\n\n")
		forged, err := note.Sign(&note.Note{Text: body + "\n"}, signer)
		Expect(err).NotTo(HaveOccurred())
		db.tamper(fmt.Sprintf(`UPDATE audit_checkpoints SET signed_note = '%s' WHERE tree_size = %d`, forged, size))

		out := f.auditVerify(2)
		Expect(out).To(ContainSubstring(fmt.Sprintf("FINDING stream %s, version %d (log position %d): it is leaf %d of the checkpointed log but is no longer stored: it was deleted",
			a.ID, last, position, leaf)))
		Expect(out).To(ContainSubstring(fmt.Sprintf("FINDING form stream %s, version %d (form.settings_changed.v1, log position %d): its hash is not the one checkpointed",
			b.ID, bLast, bPosition)))
		Expect(out).To(ContainSubstring(fmt.Sprintf("FINDING checkpoint of %d events: it is not signed by the key %s", size, testAuditVerifierKey)))
	})

	It("checkpoints only what has committed while two processes append and checkpoint at once, each event once, deliveries' streams included", func() {
		a := StartFormd()
		b := a.StartTwin("FORMD_BASE_URL="+a.URL, "FORMD_DATABASE_URL="+withPoolSize(a.DatabaseURL, 8))
		db := a.OpenDB()
		lf := a.LiveForm(nil)
		done := make(chan struct{})
		checkpointing := make(chan int, 2)
		for _, p := range []*Formd{a, b} {
			go func() {
				defer GinkgoRecover()
				n := 0
				for {
					select {
					case <-done:
						checkpointing <- n
						return
					default:
						p.audit(0, "checkpoint")
						n++
					}
				}
			}()
		}
		By("changing the form's settings, registering forms and submitting through both processes at once")
		var appends sync.WaitGroup
		for i := range 8 {
			appends.Go(func() {
				defer GinkgoRecover()
				p := []*Formd{a, b}[i%2]
				for j := range 5 {
					r := p.Patch(lf.Token, "/v1/forms/"+lf.ID, map[string]any{"subjectDefault": fmt.Sprintf("Subject %d.%d", i, j)})
					Expect(r.Status).To(BeElementOf(200, 409), "%s", r)
				}
				p.LiveForm(nil)
				for j := range 2 {
					r := p.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": fmt.Sprintf("Message %d.%d", i, j)}, fromExampleCom())
					Expect(r.Status).To(Equal(200), "%s", r)
				}
			})
		}
		appends.Wait()
		By("waiting for the submissions' deliveries, whose streams start at version 2")
		Eventually(func() int { return db.Int(`SELECT count(*)::int FROM events WHERE stream_type = 'delivery'`) }).
			WithTimeout(30 * time.Second).Should(BeNumerically(">=", 16))
		close(done)
		Expect(<-checkpointing+<-checkpointing).To(BeNumerically(">", 2), "both processes checkpointed while the appends ran")
		a.checkpointAll(db)
		Expect(db.Int(`SELECT count(*)::int FROM audit_leaves`)).To(Equal(db.Int(`SELECT count(*)::int FROM events`)))
		Expect(db.Int(`SELECT count(DISTINCT global_position)::int FROM audit_leaves`)).To(Equal(db.Int(`SELECT count(*)::int FROM audit_leaves`)))
		Expect(db.Int(`SELECT count(*)::int FROM audit_checkpoints`)).To(BeNumerically(">", 1))
		out := a.auditVerify(0)
		Expect(out).To(ContainSubstring("every chain and checkpoint matches the events"))
	})

	It("hands an auditor a bundle that verifies offline, with the key pinned, and fails with one byte changed or another key", func() {
		f := StartFormd()
		lf := f.LiveForm(nil)
		for i := range 2 {
			r := f.Patch(lf.Token, "/v1/forms/"+lf.ID, map[string]any{"subjectDefault": fmt.Sprintf("Subject %d", i)})
			Expect(r.JSON).To(HaveKey("form"), "%s", r)
		}
		versions := f.OpenDB().Int(`SELECT max(version) FROM events WHERE stream_id = $1`, lf.ID)
		r := f.exportAudit(lf.Token, lf.ID, versions)
		Expect(r.Status).To(Equal(200), "%s", r)
		file := filepath.Join(GinkgoT().TempDir(), "bundle.json")
		Expect(os.WriteFile(file, r.Body, 0o600)).To(Succeed())

		By("verifying it with no database and no network: only the file and the pinned key")
		offline := func(code int, args ...string) string {
			GinkgoHelper()
			cmd := exec.Command(formdBinary, append([]string{"audit", "verify", "--bundle"}, args...)...)
			cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + GinkgoT().TempDir()}
			s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
			Expect(err).NotTo(HaveOccurred())
			Eventually(s).WithTimeout(30*time.Second).Should(gexec.Exit(code), "formd audit verify --bundle %v", args)
			return string(s.Out.Contents()) + string(s.Err.Contents())
		}
		out := offline(0, file, "--key", testAuditVerifierKey)
		Expect(out).To(ContainSubstring(fmt.Sprintf("form stream %s: %d events, each chained to the one before and included in the checkpoint", lf.ID, versions)))
		Expect(out).To(ContainSubstring("the bundle verifies"))

		By("pinning another key")
		_, other, err := note.GenerateKey(rand.Reader, "formd-test/audit")
		Expect(err).NotTo(HaveOccurred())
		Expect(offline(2, file, "--key", other)).To(ContainSubstring("not by the key you pinned"))

		By("changing one byte of an event's data")
		changed := bytes.Replace(r.Body, []byte("Subject 0"), []byte("Subject 9"), 1)
		Expect(changed).NotTo(Equal(r.Body))
		Expect(os.WriteFile(file, changed, 0o600)).To(Succeed())
		Expect(offline(2, file, "--key", testAuditVerifierKey)).To(MatchRegexp(`FINDING .*bundle.json: event \d+: its hash does not match its content`))

		By("changing one byte of the checkpoint's size")
		var b auditBundle
		Expect(json.Unmarshal(r.Body, &b)).To(Succeed())
		lines := strings.SplitN(b.Checkpoint, "\n", 3)
		Expect(lines).To(HaveLen(3))
		size := lines[1]
		changed = bytes.Replace(r.Body, []byte(`\n`+size+`\n`), []byte(`\n`+size+`0\n`), 1)
		Expect(changed).NotTo(Equal(r.Body))
		Expect(os.WriteFile(file, changed, 0o600)).To(Succeed())
		Expect(offline(2, file, "--key", testAuditVerifierKey)).To(ContainSubstring("the checkpoint: it is not signed by the key"))
	})
})
