package features_test

import (
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Faults outside formd: the 200s stay true, and everything is delivered once
// things recover.
var _ = Describe("Recovering from faults", func() {
	It("delivers every accepted submission once the SMTP server is back", func() {
		f := StartFormd()
		lf := f.LiveForm(nil)
		db := f.OpenDB()

		By("taking the SMTP server down and posting")
		f.Mail.Stop()
		var ids []string
		for range 8 {
			r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "while mail is down"}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			ids = append(ids, r.JSON["deliveryId"].(string))
		}
		for _, id := range ids {
			Eventually(func() string { row, _ := db.Delivery(id); return row.Status }).
				WithTimeout(15*time.Second).Should(Equal("retrying"), "a refused connection is a transient failure")
		}

		By("bringing it back; the retries (due in 30 s, moved forward here) deliver every one")
		f.Mail.Start()
		db.Exec(`UPDATE deliveries SET next_attempt_at = now() WHERE status = 'retrying'`)
		for _, id := range ids {
			mailWithID(f, lf.Recipient, id)
			Eventually(func() string { row, _ := db.Delivery(id); return row.Status }).Should(Equal("succeeded"))
		}
	})

	It("lets a receiver that hangs hold up nothing else, and delivers to it once it answers", func() {
		receiver := startWebhookReceiver()
		f := StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		lf := f.LiveForm(nil)
		f.Grant(lf.OwnerEmail, "per_submit_webhook")
		db := f.OpenDB()

		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "to a slow receiver",
			"webhook": receiver.URL("/hold")}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		webhookID := r.Array("webhookDeliveryIds")[0].(string)
		Eventually(receiver.held).WithTimeout(10*time.Second).Should(Receive(), "the receiver has the call and does not answer")

		By("other submissions' mail going out meanwhile")
		for range 5 {
			other := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "meanwhile"}, fromExampleCom())
			Expect(other.Status).To(Equal(http.StatusOK), "%s", other)
			mailWithID(f, lf.Recipient, other.JSON["deliveryId"].(string))
		}
		row, _ := db.Delivery(webhookID)
		Expect(row.Status).NotTo(Equal("succeeded"))

		By("the receiver answering at last")
		receiver.releaseAll()
		Eventually(func() string { row, _ := db.Delivery(webhookID); return row.Status }).
			WithTimeout(15 * time.Second).Should(Equal("succeeded"))
	})
})
