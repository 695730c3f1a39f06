package features_test

// The audit log's hash chains (issue 39): every event is chained to its
// stream when it is appended, and `formd audit verify` names the first
// event of each stream that no longer matches (docs/audit.md).

import (
	"fmt"
	"os/exec"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// auditVerify runs `formd audit verify` on f's database and returns its
// output once it exited with code.
func (f *Formd) auditVerify(code int) string {
	GinkgoHelper()
	cmd := exec.Command(formdBinary, "audit", "verify")
	cmd.Env = append(baseEnv(), f.Env...)
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	Eventually(s).WithTimeout(30*time.Second).Should(gexec.Exit(code), "formd audit verify")
	return string(s.Out.Contents()) + string(s.Err.Contents())
}

// tamper changes the events table as someone holding the database's keys
// could: with its triggers switched off for the statement.
func (db *DB) tamper(statement string) {
	GinkgoHelper()
	db.Exec(`BEGIN; SET LOCAL session_replication_role = replica; ` + statement + `; COMMIT`)
}

var _ = Describe("Audit log verification with formd audit verify", func() {
	It("passes an untouched log, and names the first event of each stream changed, deleted, swapped or unchained by SQL", func() {
		f := StartFormd()
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
		out := f.auditVerify(0)
		Expect(out).To(ContainSubstring("every chain and checkpoint matches the events"))
		Expect(out).NotTo(ContainSubstring("FINDING"))

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
		db.tamper(`UPDATE events SET hash = NULL WHERE ` + where(4, changed))
		By("deleting an event")
		db.tamper(`DELETE FROM events WHERE ` + where(3, changed))

		out = f.auditVerify(2)
		for _, e := range expected {
			Expect(out).To(ContainSubstring(e))
		}
		Expect(out).To(ContainSubstring(fmt.Sprintf("FINDING form stream %s, version %d: version %d is missing", forms[3].ID, changed, changed)))
		Expect(strings.Count(out, "FINDING")).To(Equal(5), "one finding per tampered stream:\n%s", out)
	})
})
