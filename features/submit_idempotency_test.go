package features_test

import (
	"net/http"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// withIdempotencyKey is a browser post's header with an Idempotency-Key.
func withIdempotencyKey(key string) http.Header {
	h := fromExampleCom()
	h.Set("Idempotency-Key", key)
	return h
}

var _ = Describe("Retrying a submission with an Idempotency-Key", func() {
	var f *Formd
	var db *DB
	var lf LiveForm
	BeforeEach(func() {
		f = shared
		db = f.OpenDB()
		lf = f.LiveForm(nil)
	})

	// recipientMails is how many emails the recipient got, the verification mail included.
	recipientMails := func() int { return len(f.Mail.To(lf.Recipient)) }

	It("answers a retried post with the first response and queues it once", func() {
		key := "order-" + randomHex(8)
		body := map[string]any{"access_key": lf.AccessKey, "name": "Ada", "message": "Once, please"}

		first := f.Post("", "/submit", body, withIdempotencyKey(key))
		Expect(first.Status).To(Equal(http.StatusOK), "%s", first)
		Expect(first.JSON).To(HaveKeyWithValue("deliveryId", MatchRegexp(uuidPattern)))

		By("posting it again with the same key")
		second := f.Post("", "/submit", body, withIdempotencyKey(key))
		Expect(second.Status).To(Equal(http.StatusOK), "%s", second)
		Expect(second.JSON).To(Equal(first.JSON), "the same requestId, deliveryId and body")

		By("finding one submission, one delivery and one email")
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(1))
		Expect(db.QueuedDeliveries(lf.ID)).To(HaveLen(1))
		m := f.Mail.WaitForMail(lf.Recipient)
		Expect(m.Header.Get("Message-Id")).To(ContainSubstring(first.JSON["deliveryId"].(string)))
		Consistently(recipientMails).WithTimeout(500*time.Millisecond).Should(Equal(2), "the verification mail and one notification")

		By("the stored response holding delivery ids but not the submitted values")
		Expect(db.TablesHolding("Once, please")).To(BeEmpty())
	})

	It("refuses the same key with a different body", func() {
		key := "order-" + randomHex(8)
		first := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "First"}, withIdempotencyKey(key))
		Expect(first.Status).To(Equal(http.StatusOK), "%s", first)

		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Second"}, withIdempotencyKey(key))
		ExpectError(r, http.StatusBadRequest, "Idempotency-Key")
		Expect(r.JSON).NotTo(HaveKey("deliveryId"))
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(1))
		Expect(db.QueuedDeliveries(lf.ID)).To(HaveLen(1))
	})

	It("settles 10 concurrent posts with one key to a single submission", func() {
		key := "burst-" + randomHex(8)
		body := map[string]any{"access_key": lf.AccessKey, "message": "Double-clicked"}
		responses := make([]*Response, 10)
		var wg sync.WaitGroup
		for i := range responses {
			wg.Add(1)
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				responses[i] = f.Post("", "/submit", body, withIdempotencyKey(key))
			}()
		}
		wg.Wait()

		for _, r := range responses {
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			Expect(r.JSON).To(HaveKeyWithValue("deliveryId", responses[0].JSON["deliveryId"]))
			Expect(r.JSON).To(HaveKeyWithValue("requestId", responses[0].JSON["requestId"]))
		}
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(1))
		Expect(db.QueuedDeliveries(lf.ID)).To(HaveLen(1))
		Expect(db.Int(`SELECT count(*) FROM submission_payloads WHERE form_id = $1`, lf.ID)).To(BeNumerically("<=", 1))
		f.Mail.WaitForMail(lf.Recipient)
		Consistently(recipientMails).WithTimeout(500 * time.Millisecond).Should(Equal(2))
	})

	It("keeps keys per form: another form may use the same key", func() {
		key := "shared-" + randomHex(8)
		other := f.LiveFormOf(lf.Token, lf.OwnerEmail, nil)
		r1 := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hi"}, withIdempotencyKey(key))
		r2 := f.Post("", "/submit", map[string]any{"access_key": other.AccessKey, "message": "Hi"}, withIdempotencyKey(key))
		Expect(r1.Status).To(Equal(http.StatusOK), "%s", r1)
		Expect(r2.Status).To(Equal(http.StatusOK), "%s", r2)
		Expect(r2.JSON["deliveryId"]).NotTo(Equal(r1.JSON["deliveryId"]))
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(1))
		Expect(db.AcceptedSubmissions(other.ID)).To(HaveLen(1))
	})

	DescribeTable("refuses an invalid Idempotency-Key with 400 and stores nothing",
		func(key string) {
			r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hi"}, withIdempotencyKey(key))
			ExpectError(r, http.StatusBadRequest, "Idempotency-Key")
			Expect(db.AcceptedSubmissions(lf.ID)).To(BeEmpty())
			Expect(db.Int(`SELECT count(*) FROM idempotency_keys WHERE form_id = $1`, lf.ID)).To(BeZero())
		},
		Entry("300 characters", strings.Repeat("k", 300)),
		Entry("256 characters", strings.Repeat("k", 256)),
		Entry("a space", "order 42"),
		Entry("a non-ASCII character", "commande-é"),
	)

	It("accepts a key of 255 printable characters", func() {
		key := strings.Repeat("~", 200) + "!#$%&'*+-.^_`|" + strings.Repeat("Z", 41)
		Expect(key).To(HaveLen(255))
		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hi"}, withIdempotencyKey(key))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hi"}, withIdempotencyKey(key)).JSON).
			To(HaveKeyWithValue("deliveryId", r.JSON["deliveryId"]))
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(1))
	})

	It("ignores the key on dry runs: a later live post with it still queues", func() {
		key := "check-first-" + randomHex(8)
		body := map[string]any{"access_key": lf.AccessKey, "message": "Dry, then live"}
		dry := withIdempotencyKey(key)
		dry.Set("X-Service-Dry-Run", "true")

		By("posting a dry run with the key")
		r := f.Post("", "/submit", body, dry)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.JSON).To(HaveKeyWithValue("dryRun", true))
		Expect(db.Int(`SELECT count(*) FROM idempotency_keys WHERE form_id = $1`, lf.ID)).To(BeZero())

		By("posting live with the same key")
		live := f.Post("", "/submit", body, withIdempotencyKey(key))
		Expect(live.Status).To(Equal(http.StatusOK), "%s", live)
		Expect(live.JSON).NotTo(HaveKeyWithValue("dryRun", true))
		Expect(live.JSON).To(HaveKeyWithValue("deliveryId", MatchRegexp(uuidPattern)))
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(1))
		mailWithID(f, lf.Recipient, live.JSON["deliveryId"].(string))

		By("a dry run after it still being a dry run, not the stored live response")
		again := f.Post("", "/submit", body, dry)
		Expect(again.Status).To(Equal(http.StatusOK), "%s", again)
		Expect(again.JSON).To(HaveKeyWithValue("dryRun", true))
		Expect(again.JSON).NotTo(HaveKey("deliveryId"))
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(1))
	})
})
