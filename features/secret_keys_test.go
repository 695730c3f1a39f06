package features_test

// Secret keys (issue 8, item 10): formd refuses to serve without one outside
// development mode, keeps what it cannot unseal, and accepts old keys for
// reading after a rotation (README: Key rotation).

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// envValue is the last value of name in env ("NAME=value" entries), as
// os/exec passes it.
func envValue(env []string, name string) string {
	value := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			value = v
		}
	}
	return value
}

// stop ends a formd process and waits until it has exited.
func (f *Formd) stop() {
	GinkgoHelper()
	f.Session.Terminate()
	Eventually(f.Session).WithTimeout(20 * time.Second).Should(gexec.Exit())
}

var _ = Describe("Secret keys", func() {
	It("refuses to serve without FORMD_SECRET_KEY outside development mode, saying in one line what to set", func() {
		dataDir := GinkgoT().TempDir()
		cmd := exec.Command(formdBinary, "serve")
		cmd.Env = append(baseEnv(),
			"FORMD_LISTEN_ADDR=127.0.0.1:"+freePort(),
			// Nothing answers here: a formd that went on would fail on the
			// database instead, with another message.
			"FORMD_DATABASE_URL=postgres://postgres@127.0.0.1:1/formd?sslmode=disable&connect_timeout=2",
			"FORMD_DATA_DIR="+dataDir,
			"FORMD_LOG_LEVEL=debug")
		s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		Eventually(s).WithTimeout(20 * time.Second).Should(gexec.Exit())
		Expect(s.ExitCode()).NotTo(Equal(0))
		out := strings.TrimSpace(string(s.Err.Contents()))
		Expect(strings.Split(out, "\n")).To(HaveLen(1), "one line: %s", out)
		Expect(out).To(ContainSubstring("FORMD_SECRET_KEY is not set"))
		Expect(out).To(ContainSubstring("FORMD_DEV=true"), "it says how to run in development mode")
		Expect(string(s.Out.Contents())).To(BeEmpty())
		Expect(filepath.Join(dataDir, "secret.key")).NotTo(BeAnExistingFile(), "no key is generated outside development mode")
	})

	It("generates a development key when development mode is explicit", func() {
		f := StartFormd("FORMD_SECRET_KEY=", "FORMD_DEV=true")
		key, err := os.ReadFile(filepath.Join(f.DataDir, "secret.key"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(key)).To(MatchRegexp(`^[0-9a-f]{64}$`))
		Expect(string(f.Session.Err.Contents())).To(ContainSubstring("development mode"))
	})

	Describe("rotation", func() {
		It("delivers a submission sealed under the old key, and keeps one that no configured key opens until its key is back", func() {
			// The form is set up with delivery workers (verification mails are
			// deliveries too); then a accepts and seals but delivers nothing
			// (no delivery workers), so the payload waits for the processes
			// started after it; they share a's configuration but for what
			// they set.
			setup := StartFormd()
			db := setup.OpenDB()
			keyA := envValue(setup.Env, "FORMD_SECRET_KEY")
			lf := setup.LiveForm(nil)
			setup.stop()
			a := setup.StartTwin("FORMD_DELIVERY_WORKERS=0")

			r := a.Post("", "/submit/"+lf.AccessKey, map[string]any{"message": "Sealed under key A"}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			deliveryID := r.JSON["deliveryId"].(string)
			submissionID := db.AcceptedByRequest(r.RequestID()).StreamID
			sealedBy := db.String(`SELECT key_id FROM submission_payloads WHERE submission_id = $1`, submissionID)
			Expect(sealedBy).To(MatchRegexp(`^[0-9a-f]{8}$`), "the payload names the key that sealed it")
			Expect(db.TablesHolding(keyA)).To(BeEmpty(), "a key id, never the key")

			By("a formd with another key and without A: the delivery waits and the payload is kept")
			other := a.StartTwin("FORMD_SECRET_KEY="+randomHex(32), "FORMD_DELIVERY_WORKERS=2")
			Eventually(func() string { row, _ := db.Delivery(deliveryID); return row.Status }).
				WithTimeout(15 * time.Second).WithPolling(50 * time.Millisecond).Should(Equal("retrying"))
			row, _ := db.Delivery(deliveryID)
			Expect(row.LastError).To(ContainSubstring("sealing key wrong or missing"))
			Expect(row.LastError).To(ContainSubstring(sealedBy))
			Expect(row.LastError).To(ContainSubstring("FORMD_SECRET_KEYS_OLD"))
			Expect(db.PayloadCount(submissionID)).To(Equal(1), "the payload is kept, never shredded")
			Expect(db.Events(`event_type = 'submission.redacted.v1' AND stream_id = $1`, submissionID)).To(BeEmpty())
			Eventually(func() string { return string(other.Session.Err.Contents()) }).Should(
				SatisfyAll(ContainSubstring(`"level":"ERROR"`), ContainSubstring(deliveryID), ContainSubstring(submissionID)),
				"an error log line names the delivery and the submission")
			Expect(string(other.Session.Err.Contents())).NotTo(ContainSubstring(keyA))
			other.stop()
			Expect(lf.Recipient).NotTo(BeEmpty())
			Expect(a.Mail.To(lf.Recipient)).To(HaveLen(1), "only the recipient's verification mail so far")

			By("a formd whose current key is B, with A as an old key, delivering it at its next retry")
			// Stands in for the retry wait (30 s and more) the failed attempt set.
			db.Exec(`UPDATE deliveries SET next_attempt_at = now() WHERE id = $1`, deliveryID)
			keyB := randomHex(32)
			b := a.StartTwin("FORMD_SECRET_KEY="+keyB, "FORMD_SECRET_KEYS_OLD="+randomHex(32)+","+keyA, "FORMD_DELIVERY_WORKERS=2")
			Expect(mailWithID(a, lf.Recipient, deliveryID).Text).To(ContainSubstring("Sealed under key A"))
			Eventually(func() int { return db.PayloadCount(submissionID) }).Should(Equal(0), "redacted once delivered")

			By("B sealing new submissions under B")
			r = b.Post("", "/submit/"+lf.AccessKey, map[string]any{"message": "Sealed under key B"}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			Expect(mailWithID(b, lf.Recipient, r.JSON["deliveryId"].(string)).Text).To(ContainSubstring("Sealed under key B"))
		})

		It("verifies a link issued under the old key after a rotation, and no longer once that key is dropped", func() {
			a := StartFormd()
			keyA := envValue(a.Env, "FORMD_SECRET_KEY")
			first, second := UniqueEmail("before-rotation"), UniqueEmail("before-rotation")
			a.Register(first, DefaultPassword)
			a.Register(second, DefaultPassword)
			firstLink, secondLink := Link(a.Mail.WaitForMail(first)), Link(a.Mail.WaitForMail(second))
			Expect(firstLink).To(MatchRegexp(`/verify/[0-9a-f]{8}\.[A-Za-z0-9_-]{43}$`), "a token names its key")
			a.stop()

			By("B current and A old: A's link verifies")
			keyB := randomHex(32)
			b := a.StartTwin("FORMD_SECRET_KEY="+keyB, "FORMD_SECRET_KEYS_OLD="+keyA)
			page := b.OpenLink(b.On(firstLink))
			Expect(string(page.Body)).To(ContainSubstring(first))
			confirmed := b.ConfirmLink(b.On(firstLink))
			Expect(confirmed.Status).To(Equal(http.StatusOK), "%s", confirmed)
			b.stop()

			By("A dropped from the old keys: A's links no longer verify")
			c := a.StartTwin("FORMD_SECRET_KEY=" + keyB)
			Expect(c.Get("", c.On(secondLink)).Status).To(Equal(http.StatusNotFound), "its page is not offered")
			Expect(c.ConfirmLink(c.On(secondLink)).Status).To(Equal(http.StatusNotFound), "nor does confirming work")
		})
	})
})
