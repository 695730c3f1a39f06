package features_test

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// deliveriesOf lists one page of a form's delivery log, expecting 200.
func deliveriesOf(f *Formd, token, formID, query string) (page []map[string]any, next string) {
	GinkgoHelper()
	r := f.Get(token, "/v1/forms/"+formID+"/deliveries"+query)
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	for _, d := range r.Array("deliveries") {
		page = append(page, d.(map[string]any))
	}
	next, _ = r.JSON["nextCursor"].(string)
	return page, next
}

// deliveryIn finds a delivery of the log by id; nil when absent.
func deliveryIn(page []map[string]any, id string) map[string]any {
	for _, d := range page {
		if d["id"] == id {
			return d
		}
	}
	return nil
}

// eventTypes are the types of a delivery's events, in order.
func eventTypes(r *Response) []string {
	var out []string
	for _, e := range r.Array("events") {
		out = append(out, e.(map[string]any)["type"].(string))
	}
	return out
}

var _ = Describe("The delivery log", Ordered, func() {
	var (
		f          *Formd
		db         *DB
		receiver   *webhookReceiver
		lf         LiveForm
		otherToken string
		// the first submission: a webhook that fails for good, and its notification
		webhookID, notificationID, submissionID string
	)

	BeforeAll(func() {
		receiver = startWebhookReceiver()
		f = StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		db = f.OpenDB()
		lf = f.LiveForm(nil)
		f.Grant(lf.OwnerEmail, "per_submit_webhook")
		otherToken, _ = f.RegisteredVerifiedUser()

		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hello",
			"webhook": receiver.URL("/broken?token=s3cret")}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		webhookID = r.Array("webhookDeliveryIds")[0].(string)
		notificationID = r.JSON["deliveryId"].(string)
		submissionID = db.AcceptedByRequest(r.RequestID()).StreamID
	})

	It("shows a webhook that failed for good and a notification that went out, with their targets shown safely", func() {
		var page []map[string]any
		Eventually(func(g Gomega) {
			page, _ = deliveriesOf(f, lf.Token, lf.ID, "")
			g.Expect(deliveryIn(page, webhookID)).To(HaveKeyWithValue("state", "failed"))
			g.Expect(deliveryIn(page, notificationID)).To(HaveKeyWithValue("state", "succeeded"))
		}).WithTimeout(15 * time.Second).Should(Succeed())

		hook := deliveryIn(page, webhookID)
		Expect(hook).To(HaveKeyWithValue("kind", "webhook"))
		Expect(hook).To(HaveKeyWithValue("formId", lf.ID))
		Expect(hook).To(HaveKeyWithValue("target", "127.0.0.1"), "the webhook's host only")
		Expect(hook).To(HaveKeyWithValue("attempts", BeNumerically("==", 1)))
		Expect(hook).To(HaveKeyWithValue("lastError", ContainSubstring("410")))
		Expect(hook).To(HaveKeyWithValue("nextAttemptAt", BeNil()))
		Expect(hook).To(HaveKeyWithValue("finishedAt", Not(BeNil())))
		Expect(hook).To(HaveKeyWithValue("createdAt", Not(BeEmpty())))

		mail := deliveryIn(page, notificationID)
		Expect(mail).To(HaveKeyWithValue("kind", "notification"))
		domain := lf.Recipient[strings.LastIndex(lf.Recipient, "@")+1:]
		Expect(domain).To(Equal("example.test"))
		Expect(mail).To(HaveKeyWithValue("target", domain), "an email's domain only")
		Expect(mail).To(HaveKeyWithValue("lastError", ""))

		By("never showing a full address or the webhook's path and query")
		raw := f.Get(lf.Token, "/v1/forms/"+lf.ID+"/deliveries").Body
		Expect(string(raw)).NotTo(ContainSubstring(lf.Recipient))
		Expect(string(raw)).NotTo(ContainSubstring("@"))
		Expect(string(raw)).NotTo(ContainSubstring("s3cret"))
		Expect(string(raw)).NotTo(ContainSubstring("/broken"))

		By("listing the recipient's verification mail, and never the account's own mails")
		verifications, _ := deliveriesOf(f, lf.Token, lf.ID, "?kind=recipient_verification")
		Expect(verifications).To(HaveLen(1))
		Expect(verifications[0]).To(HaveKeyWithValue("state", "succeeded"))
		Expect(verifications[0]).To(HaveKeyWithValue("target", domain))
		Expect(f.Get(lf.Token, "/v1/deliveries/"+db.AccountVerificationDelivery(lf.OwnerEmail)).Status).
			To(Equal(http.StatusNotFound))

		By("showing each attempt of the webhook")
		r := f.Get(lf.Token, "/v1/deliveries/"+webhookID)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Object("delivery")).To(HaveKeyWithValue("state", "failed"))
		Expect(eventTypes(r)).To(Equal([]string{"submission.accepted.v1", "delivery.failed.v1"}))
		queued := r.Array("events")[0].(map[string]any)
		Expect(queued).To(HaveKeyWithValue("version", BeNumerically("==", 1)), "version 1: the submission's own event queued it")
		Expect(queued).To(HaveKeyWithValue("actor", HaveKeyWithValue("type", "submitter")))
		failed := r.Array("events")[1].(map[string]any)
		Expect(failed).To(HaveKeyWithValue("version", BeNumerically("==", 2)))
		Expect(failed).To(HaveKeyWithValue("attempt", BeNumerically("==", 1)))
		Expect(failed).To(HaveKeyWithValue("error", ContainSubstring("410")))

		By("keeping the submission's sealed payload so the webhook can be retried")
		Expect(db.PayloadCount(submissionID)).To(Equal(1))
	})

	It("filters by state and kind", func() {
		failed, _ := deliveriesOf(f, lf.Token, lf.ID, "?state=failed")
		Expect(failed).To(HaveLen(1))
		Expect(failed[0]).To(HaveKeyWithValue("id", webhookID))
		notifications, _ := deliveriesOf(f, lf.Token, lf.ID, "?kind=notification&state=succeeded")
		Expect(notifications).To(HaveLen(1))
		Expect(notifications[0]).To(HaveKeyWithValue("id", notificationID))
		none, _ := deliveriesOf(f, lf.Token, lf.ID, "?kind=webhook&state=succeeded")
		Expect(none).To(BeEmpty())

		ExpectError(f.Get(lf.Token, "/v1/forms/"+lf.ID+"/deliveries?state=lost", OffContract("state outside the enum")),
			http.StatusBadRequest, "state")
		ExpectError(f.Get(lf.Token, "/v1/forms/"+lf.ID+"/deliveries?kind=email", OffContract("kind outside the enum")),
			http.StatusBadRequest, "kind")
	})

	It("pages newest first with an opaque cursor", func() {
		var sent []string
		for range 4 {
			r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "More"}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			sent = append(sent, r.JSON["deliveryId"].(string))
		}
		By("the deliveries being queued (projected from their events)")
		Eventually(func() []map[string]any {
			all, _ := deliveriesOf(f, lf.Token, lf.ID, "?kind=notification&limit=200")
			return all
		}).WithTimeout(10 * time.Second).Should(HaveLen(5))

		var seen []string
		var created []time.Time
		cursor, pages := "", 0
		for {
			query := "?kind=notification&limit=2"
			if cursor != "" {
				query += "&cursor=" + url.QueryEscape(cursor)
			}
			page, next := deliveriesOf(f, lf.Token, lf.ID, query)
			pages++
			Expect(len(page)).To(BeNumerically("<=", 2))
			for _, d := range page {
				seen = append(seen, d["id"].(string))
				at, err := time.Parse(time.RFC3339Nano, d["createdAt"].(string))
				Expect(err).NotTo(HaveOccurred())
				created = append(created, at)
			}
			if next == "" {
				break
			}
			cursor = next
			Expect(pages).To(BeNumerically("<", 10))
		}
		Expect(pages).To(Equal(3), "5 notifications, 2 a page")
		Expect(seen).To(HaveLen(5))
		Expect(seen).To(ContainElements(append(sent, notificationID)))
		Expect(seen[0]).To(Equal(sent[3]), "newest first")
		Expect(seen[4]).To(Equal(notificationID), "oldest last")
		for i := 1; i < len(created); i++ {
			Expect(created[i]).NotTo(BeTemporally(">", created[i-1]))
		}

		ExpectError(f.Get(lf.Token, "/v1/forms/"+lf.ID+"/deliveries?cursor=not-ours"), http.StatusBadRequest, "cursor")
		ExpectError(f.Get(lf.Token, "/v1/forms/"+lf.ID+"/deliveries?limit=201", OffContract("limit above the maximum")),
			http.StatusBadRequest, "limit")
	})

	It("is not found by another account, on every route", func() {
		ExpectError(f.Get(otherToken, "/v1/forms/"+lf.ID+"/deliveries"), http.StatusNotFound)
		ExpectError(f.Get(otherToken, "/v1/deliveries/"+webhookID), http.StatusNotFound)
		ExpectError(f.Post(otherToken, "/v1/deliveries/"+webhookID+"/retry", nil), http.StatusNotFound)
		ExpectError(f.Get(lf.Token, "/v1/deliveries/00000000-0000-4000-8000-000000000000"), http.StatusNotFound)
		row, _ := db.Delivery(webhookID)
		Expect(row.Status).To(Equal("failed"), "another account's retry changed nothing")
	})

	It("retries a failed delivery by hand, recording who asked", func() {
		receiver.Fix()
		r := f.Post(lf.Token, "/v1/deliveries/"+webhookID+"/retry", nil)
		Expect(r.Status).To(Equal(http.StatusAccepted), "%s", r)
		Expect(r.Object("delivery")).To(HaveKeyWithValue("state", "queued"))
		Expect(r.Object("delivery")).To(HaveKeyWithValue("finishedAt", BeNil()))

		By("the webhook going out again and succeeding")
		Eventually(func(g Gomega) {
			d := f.Get(lf.Token, "/v1/deliveries/"+webhookID)
			g.Expect(d.Object("delivery")).To(HaveKeyWithValue("state", "succeeded"))
		}).WithTimeout(15 * time.Second).Should(Succeed())
		Expect(receiver.Calls("/broken")).To(HaveLen(2))

		d := f.Get(lf.Token, "/v1/deliveries/"+webhookID)
		Expect(d.Object("delivery")).To(HaveKeyWithValue("attempts", BeNumerically("==", 2)))
		Expect(eventTypes(d)).To(Equal([]string{"submission.accepted.v1", "delivery.failed.v1",
			"delivery.retry_requested.v1", "delivery.succeeded.v1"}))
		retry := d.Array("events")[2].(map[string]any)
		Expect(retry).To(HaveKeyWithValue("actor", HaveKeyWithValue("type", "session")))
		Expect(HashPrefixOf(lf.Token, retry["actor"].(map[string]any)["id"].(string))).To(BeTrue(), "the caller's session")
		Expect(retry).To(HaveKeyWithValue("requestId", r.RequestID()))

		By("shredding the payload once no delivery is failed any more")
		Eventually(func() int { return db.PayloadCount(submissionID) }).WithTimeout(10 * time.Second).Should(BeZero())

		By("refusing to retry a delivery that did not fail")
		ExpectError(f.Post(lf.Token, "/v1/deliveries/"+webhookID+"/retry", nil), http.StatusForbidden,
			"Only a failed delivery can be retried", "succeeded")
	})

	It("refuses a retry once the submission's data was deleted after the retention", func() {
		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Gone",
			"webhook": receiver.URL("/gone")}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		goneID := r.Array("webhookDeliveryIds")[0].(string)
		goneSubmission := db.AcceptedByRequest(r.RequestID()).StreamID
		Eventually(func() int {
			return db.Int(`SELECT count(*) FROM submission_payloads WHERE submission_id = $1 AND pending = 0 AND keep_until IS NOT NULL`, goneSubmission)
		}).WithTimeout(15 * time.Second).Should(Equal(1))

		By("the retention running out, and formd's sweep (at start, then hourly) shredding the payload")
		db.Exec(`UPDATE submission_payloads SET keep_until = now() - interval '1 minute' WHERE submission_id = $1`, goneSubmission)
		f.Restart()
		Eventually(func() int { return db.PayloadCount(goneSubmission) }).WithTimeout(10 * time.Second).Should(BeZero())
		Expect(db.Events(`event_type = 'submission.redacted.v1' AND stream_id = $1`, goneSubmission)).To(HaveLen(1))

		ExpectError(f.Post(lf.Token, "/v1/deliveries/"+goneID+"/retry", nil), http.StatusForbidden,
			"the submission's data was deleted after 7 days")
		row, _ := db.Delivery(goneID)
		Expect(row.Status).To(Equal("failed"))
	})
})
