package features_test

// Key rotation with `formd rekey` (issue 37): what an old key sealed is
// sealed again under the current key, so the old key can be dropped without
// losing a queued delivery (docs/operations.md: Key rotation).

import (
	"net/http"
	"net/url"
	"os/exec"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// rekey runs `formd rekey` with f's configuration and env on top, and
// returns its session once it exited with code.
func (f *Formd) rekey(code int, env []string, args ...string) *gexec.Session {
	GinkgoHelper()
	cmd := exec.Command(formdBinary, append([]string{"rekey"}, args...)...)
	cmd.Env = append(append(baseEnv(), f.Env...), env...)
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	Eventually(s).WithTimeout(30*time.Second).Should(gexec.Exit(code), "formd rekey %v", args)
	return s
}

var _ = Describe("Key rotation with formd rekey", func() {
	It("re-seals queued payloads and webhook secrets under the new key, so they are delivered and signed once the old key is dropped", func() {
		// As in the rotation spec of Secret keys: the form is set up with
		// delivery workers, then processes without them accept and seal.
		receiver := startWebhookReceiver()
		setup := StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		db := setup.OpenDB()
		keyA := envValue(setup.Env, "FORMD_SECRET_KEY")
		lf := setup.LiveForm(nil)
		w := setup.Patch(lf.Token, integrationsPath(lf.ID, "webhook"), map[string]any{"enabled": true, "targetUrl": receiver.URL("/rekey")})
		Expect(w.Status).To(Equal(http.StatusOK), "%s", w)
		secret := expectStandardWebhooksSecret(w.Object("integration")["secret"])
		setup.stop()
		a := setup.StartTwin("FORMD_DELIVERY_WORKERS=0")
		r := a.Post("", "/submit/"+lf.AccessKey, map[string]any{"message": "Sealed under key A"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		deliveryID := r.JSON["deliveryId"].(string)
		Expect(r.Array("webhookDeliveryIds")).To(HaveLen(1))
		webhookID := r.Array("webhookDeliveryIds")[0].(string)
		submissionID := db.AcceptedByRequest(r.RequestID()).StreamID
		payloadKey := func(id string) string {
			return db.String(`SELECT key_id FROM submission_payloads WHERE submission_id = $1`, id)
		}
		idA := payloadKey(submissionID)
		a.stop()

		By("restarting with B as the key and A as an old one")
		keyB := randomHex(32)
		rotated := []string{"FORMD_SECRET_KEY=" + keyB, "FORMD_SECRET_KEYS_OLD=" + keyA}
		b := a.StartTwin(append(rotated, "FORMD_DELIVERY_WORKERS=0")...)
		r = b.Post("", "/submit/"+lf.AccessKey, map[string]any{"message": "Sealed under key B"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		laterID := db.AcceptedByRequest(r.RequestID()).StreamID
		idB := payloadKey(laterID)
		Expect(idB).NotTo(Equal(idA))

		By("a dry run counts what is under A and writes nothing")
		dry := b.rekey(0, rotated, "--dry-run")
		Expect(string(dry.Out.Contents())).To(ContainSubstring("submission payloads: would re-seal key id " + idA + ": 1\n"))
		Expect(string(dry.Out.Contents())).To(ContainSubstring("dry run: nothing was written"))
		Expect(payloadKey(submissionID)).To(Equal(idA))

		By("formd rekey, while B serves, re-seals it under B and says nothing is left under an old key")
		run := b.rekey(0, rotated)
		out := string(run.Out.Contents())
		Expect(out).To(ContainSubstring("current key id " + idB + "\n"))
		Expect(out).To(ContainSubstring("submission payloads: re-sealed key id " + idA + ": 1\n"))
		Expect(out).To(ContainSubstring("webhook signing secrets: re-sealed key id " + idA + ": 1\n"))
		Expect(out).To(ContainSubstring("nothing is left under an old key"))
		for _, s := range []string{out, string(run.Err.Contents())} {
			Expect(s).NotTo(ContainSubstring(keyA))
			Expect(s).NotTo(ContainSubstring(keyB))
		}
		Expect(payloadKey(submissionID)).To(Equal(idB))
		Expect(db.String(`SELECT string_agg(DISTINCT key_id, ',') FROM webhook_secrets WHERE form_id = $1`, lf.ID)).To(Equal(idB))
		Expect(db.TablesHolding(keyB)).To(BeEmpty(), "a key id, never the key")

		By("a second run does nothing")
		again := string(b.rekey(0, rotated).Out.Contents())
		Expect(again).To(ContainSubstring("submission payloads: nothing under an old key\n"))
		Expect(again).NotTo(ContainSubstring("re-sealed"))

		By("with a key that opens none of it, rekey leaves everything and exits with status 2")
		lost := b.rekey(2, []string{"FORMD_SECRET_KEY=" + randomHex(32), "FORMD_SECRET_KEYS_OLD="})
		Expect(string(lost.Out.Contents())).To(ContainSubstring("submission payloads: cannot open: key id " + idB + ": 2\n"))
		Expect(string(lost.Err.Contents())).To(ContainSubstring("still sealed under an old key"))
		Expect(payloadKey(submissionID)).To(Equal(idB))
		b.stop()

		By("A dropped: the delivery queued under A is delivered")
		c := a.StartTwin("FORMD_SECRET_KEY="+keyB, "FORMD_SECRET_KEYS_OLD=", "FORMD_DELIVERY_WORKERS=2")
		Expect(mailWithID(c, lf.Recipient, deliveryID).Text).To(ContainSubstring("Sealed under key A"))
		var calls []webhookCall
		Eventually(func() []webhookCall {
			calls = nil
			for _, call := range receiver.Calls("/rekey") {
				if call.Header.Get("webhook-id") == webhookID {
					calls = append(calls, call)
				}
			}
			return calls
		}).WithTimeout(15 * time.Second).Should(HaveLen(1))
		Expect(verifyStandardWebhook(secret, calls[0])).To(BeTrue(), "signed with the secret issued under A")
		Eventually(func() int { return db.PayloadCount(submissionID) }).Should(Equal(0), "redacted once delivered")
	})
	It("re-hashes archived submissions with their seal, so the archive's searches and erasure by email find them once the old key is dropped", func() {
		a := StartFormd()
		db := a.OpenDB()
		keyA := envValue(a.Env, "FORMD_SECRET_KEY")
		lf := a.LiveForm(map[string]any{"allowedDomains": []string{"example.com"},
			"archive": map[string]any{"enabled": true, "retentionDays": 30}})
		email := UniqueEmail("rekeyed")
		r := a.Post("", "/submit/"+lf.AccessKey, map[string]any{"email": email, "message": "Archived under key A"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		mailWithID(a, lf.Recipient, r.JSON["deliveryId"].(string))
		id := db.AcceptedByRequest(r.RequestID()).StreamID
		search := func(f *Formd) []any {
			GinkgoHelper()
			got := f.Get(lf.Token, "/v1/forms/"+lf.ID+"/submissions?email="+url.QueryEscape(email))
			Expect(got.Status).To(Equal(http.StatusOK), "%s", got)
			return got.JSON["submissions"].([]any)
		}
		Expect(search(a)).To(HaveLen(1))
		indexA := db.String(`SELECT value_hashes::text FROM submission_payloads WHERE submission_id = $1`, id)
		a.stop()

		By("rotating to B and running rekey: the payload and its search index are made again under B")
		keyB := randomHex(32)
		rotated := []string{"FORMD_SECRET_KEY=" + keyB, "FORMD_SECRET_KEYS_OLD=" + keyA}
		b := a.StartTwin(rotated...)
		Expect(search(b)).To(HaveLen(1), "found under the old key while it is configured")
		b.rekey(0, rotated)
		Expect(db.String(`SELECT value_hashes::text FROM submission_payloads WHERE submission_id = $1`, id)).NotTo(Equal(indexA))
		b.stop()

		By("A dropped: the search still finds it, reads it, and erasure by email shreds it")
		c := a.StartTwin("FORMD_SECRET_KEY="+keyB, "FORMD_SECRET_KEYS_OLD=")
		found := search(c)
		Expect(found).To(HaveLen(1))
		Expect(found[0]).To(HaveKeyWithValue("id", id))
		Expect(found[0].(map[string]any)["fields"]).To(ContainElement(map[string]any{"name": "message", "value": "Archived under key A"}))
		erased := c.Post(lf.Token, "/v1/forms/"+lf.ID+"/submissions/erase", map[string]any{"email": email})
		Expect(erased.Status).To(Equal(http.StatusOK), "%s", erased)
		Expect(erased.JSON).To(HaveKeyWithValue("erased", 1.0))
		Expect(db.PayloadCount(id)).To(BeZero())
	})
})
