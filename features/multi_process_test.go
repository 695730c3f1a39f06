package features_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// concurrently runs fn(0) … fn(n-1) in goroutines released together, and
// waits for all of them.
func concurrently(n int, fn func(i int)) {
	GinkgoHelper()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer GinkgoRecover()
			defer wg.Done()
			<-start
			fn(i)
		}()
	}
	close(start)
	wg.Wait()
}

// withPoolSize is a database URL with pool_max_conns set to n, whose idle
// connections close after a second: four Ginkgo processes run formds side by
// side under PostgreSQL's 100 connections, and a formd between specs must not
// keep the connections its last burst opened.
func withPoolSize(databaseURL string, n int) string {
	GinkgoHelper()
	u, err := url.Parse(databaseURL)
	Expect(err).NotTo(HaveOccurred())
	q := u.Query()
	q.Set("pool_max_conns", strconv.Itoa(n))
	q.Set("pool_max_conn_idle_time", "1s")
	q.Set("pool_health_check_period", "500ms")
	u.RawQuery = q.Encode()
	return u.String()
}

// One pair of processes serves the container's specs (each uses forms and
// addresses of its own): a pair per spec would run up to four pairs at once
// under -p, and PostgreSQL's 100 connections would not hold them next to the
// rest of the suite.
var _ = Describe("Several formd processes on one database", Ordered, ContinueOnFailure, func() {
	// a and b are two formd processes behind one public address (A's, as a
	// load balancer's would be): one database, one secret key, one SMTP server
	// (a.Mail is b.Mail). Links in emails point at A whichever process wrote
	// them, and a test follows them on B.
	var a, b *Formd
	var db *DB
	BeforeAll(func() {
		// The lifetime plan's quota is small here, for the quota spec; the
		// others use free accounts.
		a = StartFormd("FORMD_QUOTA_LIFETIME=25")
		b = a.StartTwin("FORMD_BASE_URL="+a.URL, "FORMD_DATABASE_URL="+withPoolSize(a.DatabaseURL, 8))
		db = a.OpenDB()
	})

	It("accepts live submissions on one process for a form created and verified through the other", func() {
		By("registering and creating the form through A")
		token, _ := a.RegisteredVerifiedUser()
		form, key := a.CreateForm(token, contactForm(nil))
		recipient := form["recipientEmail"].(string)
		Expect(b.FormByID(token, form["id"].(string))).To(HaveKeyWithValue("recipientVerified", false),
			"B knows A's session and lists A's form")

		By("A refusing a submission while the recipient is unverified (and caching the form)")
		ExpectError(a.Post("", "/submit/"+key, map[string]any{"message": "Too early"}, fromExampleCom()),
			http.StatusBadRequest, "not verified")

		By("following A's recipient verification link on B")
		m := a.Mail.WaitForMail(recipient)
		Expect(Link(m)).To(HavePrefix(a.URL + "/verify/"))
		page := b.FollowLink(b.On(Link(m))) // open, then confirm with the page's button (issue 8, item 6)
		Expect(page.Status).To(Equal(http.StatusOK), "%s", page)
		Expect(a.FormByID(token, form["id"].(string))).To(HaveKeyWithValue("recipientVerified", true))

		By("submitting through B, and through A at once despite its cached unverified form")
		r := b.Post("", "/submit/"+key, map[string]any{"name": "Ada", "message": "Hello from B"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		fromA := a.Post("", "/submit/"+key, map[string]any{"name": "Ada", "message": "Hello from A"}, fromExampleCom())
		Expect(fromA.Status).To(Equal(http.StatusOK), "%s", fromA)
		Expect(mailWithID(b, recipient, r.JSON["deliveryId"].(string)).Text).To(ContainSubstring("Hello from B"))
		Expect(mailWithID(a, recipient, fromA.JSON["deliveryId"].(string)).Text).To(ContainSubstring("Hello from A"))
		Expect(db.AcceptedSubmissions(form["id"].(string))).To(HaveLen(2))
		Consistently(func() int { return len(a.Mail.To(recipient)) }).WithTimeout(300*time.Millisecond).
			Should(Equal(3), "one verification mail and two notifications, though both processes consume the events")
	})

	It("accepts 40 concurrent submissions spread over both processes and delivers each exactly once", func() {
		const total = 40
		lf := a.LiveForm(nil)
		responses := make([]*Response, total)
		concurrently(total, func(i int) {
			via := a
			if i%2 == 1 {
				via = b
			}
			responses[i] = via.Post("", "/submit", map[string]any{"access_key": lf.AccessKey,
				"message": fmt.Sprintf("Message %d", i)}, fromExampleCom())
		})

		ids := map[string]bool{}
		for _, r := range responses {
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			id, _ := r.JSON["deliveryId"].(string)
			Expect(id).To(MatchRegexp(uuidPattern), "%s", r)
			ids[id] = true
		}
		Expect(ids).To(HaveLen(total), "a delivery id of its own for each submission")
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(total))
		Expect(db.QueuedDeliveries(lf.ID)).To(HaveLen(total))

		By("the recipient receiving every notification exactly once")
		notifications := func() map[string]int {
			seen := map[string]int{}
			for _, m := range a.Mail.To(lf.Recipient) {
				for id := range ids {
					if strings.Contains(m.Header.Get("Message-Id"), id) {
						seen[id]++
					}
				}
			}
			return seen
		}
		count := func() int {
			n := 0
			for _, c := range notifications() {
				n += c
			}
			return n
		}
		Eventually(count).WithTimeout(15 * time.Second).WithPolling(50 * time.Millisecond).Should(Equal(total))
		Consistently(count).WithTimeout(time.Second).WithPolling(50*time.Millisecond).Should(Equal(total), "no notification twice")
		Expect(notifications()).To(HaveLen(total))
		Expect(a.Mail.To(lf.Recipient)).To(HaveLen(total+1), "the notifications and the verification mail, nothing else")

		By("every delivery succeeding at its first attempt")
		// The form's deliveries are the notifications plus, since
		// verification mails became deliveries (issue 8 item 1), the mail
		// that verified its recipient.
		Eventually(func() int {
			return db.Int(`SELECT count(*) FROM deliveries WHERE form_id = $1 AND status = 'succeeded'`, lf.ID)
		}).WithTimeout(5 * time.Second).Should(Equal(total + 1))
		Expect(db.Int(`SELECT count(*) FROM deliveries WHERE form_id = $1`, lf.ID)).To(Equal(total + 1))
		Expect(db.Int(`SELECT count(*) FROM deliveries WHERE form_id = $1 AND kind = 'recipient_verification'`, lf.ID)).To(Equal(1))
		Expect(db.Int(`SELECT count(*) FROM deliveries WHERE form_id = $1 AND attempts <> 1`, lf.ID)).To(BeZero())
		Expect(db.Int(`SELECT count(*) FROM events WHERE event_type = 'delivery.succeeded.v1' AND stream_id IN
			(SELECT id FROM deliveries WHERE form_id = $1)`, lf.ID)).
			To(Equal(total + 1))

		By("every payload being redacted once")
		redacted := func() int {
			return db.Int(`SELECT count(*) FROM events WHERE event_type = 'submission.redacted.v1' AND stream_id IN
				(SELECT stream_id FROM events WHERE event_type = 'submission.accepted.v1' AND data->>'formId' = $1)`, lf.ID)
		}
		Eventually(redacted).WithTimeout(5 * time.Second).Should(Equal(total))
		Expect(db.Int(`SELECT count(*) FROM submission_payloads WHERE form_id = $1`, lf.ID)).To(BeZero())
	})

	It("settles one Idempotency-Key posted concurrently to both processes to a single submission", func() {
		lf := a.LiveForm(nil)
		key := "twin-" + randomHex(8)
		body := map[string]any{"access_key": lf.AccessKey, "message": "Sent through two doors"}
		responses := make([]*Response, 10)
		concurrently(len(responses), func(i int) {
			via := a
			if i%2 == 1 {
				via = b
			}
			responses[i] = via.Post("", "/submit", body, withIdempotencyKey(key))
		})

		for _, r := range responses {
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			Expect(r.JSON).To(HaveKeyWithValue("deliveryId", responses[0].JSON["deliveryId"]))
			Expect(r.JSON).To(HaveKeyWithValue("requestId", responses[0].JSON["requestId"]))
		}
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(1))
		Expect(db.QueuedDeliveries(lf.ID)).To(HaveLen(1))
		Expect(db.Int(`SELECT count(*) FROM idempotency_keys WHERE form_id = $1`, lf.ID)).To(Equal(1))
		mailWithID(a, lf.Recipient, responses[0].JSON["deliveryId"].(string))
		Consistently(func() int { return len(a.Mail.To(lf.Recipient)) }).WithTimeout(500*time.Millisecond).
			Should(Equal(2), "the verification mail and one notification")
	})

	It("enforces a settings change made through one process on the other's very next submission", func() {
		lf := a.LiveForm(map[string]any{"allowedDomains": []string{"example.com"}})
		form := "/v1/forms/" + lf.ID
		hello := func() map[string]any { return map[string]any{"message": "Hello"} }

		By("B caching the form while it accepts example.com")
		Expect(b.Post("", "/submit/"+lf.AccessKey, hello(), fromOrigin("https://example.com")).Status).To(Equal(http.StatusOK))

		By("A moving the form to example.org")
		r := a.Patch(lf.Token, form, map[string]any{"allowedDomains": []string{"example.org"}})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)

		By("B refusing example.com at once, though its cache still allows it")
		ExpectError(b.Post("", "/submit/"+lf.AccessKey, hello(), fromOrigin("https://example.com")),
			http.StatusBadRequest, "allowedDomains")
		Expect(b.Post("", "/submit/"+lf.AccessKey, hello(), fromOrigin("https://example.org")).Status).To(Equal(http.StatusOK))

		By("A moving it back, and B accepting example.com at once, though its cache refuses it")
		r = a.Patch(lf.Token, form, map[string]any{"allowedDomains": []string{"example.com"}})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(b.Post("", "/submit/"+lf.AccessKey, hello(), fromOrigin("https://example.com")).Status).To(Equal(http.StatusOK))
		ExpectError(b.Post("", "/submit/"+lf.AccessKey, hello(), fromOrigin("https://example.org")),
			http.StatusBadRequest, "allowedDomains")

		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(3))
	})

	It("holds a monthly quota across both processes: hammering an account's last 10 submissions accepts exactly 10", func() {
		lf := a.LiveForm(nil)
		a.SetPlan(lf.OwnerEmail, "lifetime") // 25 a month here
		post := func(via *Formd, i int) *Response {
			GinkgoHelper()
			return via.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": fmt.Sprintf("Message %d", i)},
				fromExampleCom())
		}
		By("using 15 of the 25 through both processes")
		for i := range 15 {
			via := a
			if i%2 == 1 {
				via = b
			}
			Expect(post(via, i).Status).To(Equal(http.StatusOK))
		}

		By("posting 40 at once, half through each process")
		responses := make([]*Response, 40)
		concurrently(len(responses), func(i int) {
			via := a
			if i%2 == 1 {
				via = b
			}
			responses[i] = post(via, 100+i)
		})
		accepted := 0
		for _, r := range responses {
			if r.Status == http.StatusOK {
				accepted++
				continue
			}
			ExpectError(r, http.StatusTooManyRequests, "Monthly submission quota of 25 for the lifetime plan is used up")
			Expect(r.Header.Get("Retry-After")).NotTo(BeEmpty())
		}
		Expect(accepted).To(Equal(10), "exactly the 10 left")
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(25))
		Expect(usageOf(b.Account(lf.Token))).To(HaveKeyWithValue("used", 25.0))
		expectQuotaRefusal(post(b, 999), 25, "lifetime")
	})

	It("registers one account when both processes receive the same new email at once", func() {
		accounts := func(email string) int {
			return db.Int(`SELECT count(*) FROM accounts WHERE lower(email) = lower($1)`, email)
		}

		By("registering without a password: one credential, the others refused")
		for range 4 {
			email := UniqueEmail("race")
			responses := make([]*Response, 4)
			concurrently(len(responses), func(i int) {
				via, address := a, email
				if i%2 == 1 {
					via, address = b, strings.ToUpper(email)
				}
				responses[i] = via.Post("", "/agent/auth", map[string]any{"email": address, "type": "user_claimed"})
			})
			var credentials []string
			for _, r := range responses {
				if r.Status == http.StatusOK {
					credentials = append(credentials, r.JSON["credential"].(string))
					continue
				}
				ExpectError(r, http.StatusBadRequest, "already exists")
				Expect(r.JSON).NotTo(HaveKey("credential"))
			}
			Expect(credentials).To(HaveLen(1), "exactly one registration wins")
			Expect(accounts(email)).To(Equal(1))
			Expect(a.Forms(credentials[0])).To(BeEmpty(), "the credential works")
			Expect(b.Forms(credentials[0])).To(BeEmpty(), "on either process")
			a.Mail.WaitForMail(email)
			Consistently(func() int { return len(a.Mail.To(email)) }).WithTimeout(200*time.Millisecond).
				Should(Equal(1), "one account verification mail")
		}

		By("registering with a password: any credential handed out is for the one account")
		email := UniqueEmail("race")
		responses := make([]*Response, 4)
		concurrently(len(responses), func(i int) {
			via := a
			if i%2 == 1 {
				via = b
			}
			responses[i] = via.Post("", "/agent/auth", map[string]any{"email": email, "password": DefaultPassword})
		})
		var credentials []string
		for _, r := range responses {
			if r.Status != http.StatusOK {
				ExpectError(r, http.StatusBadRequest, "already exists")
				continue
			}
			credentials = append(credentials, r.JSON["credential"].(string))
		}
		Expect(credentials).NotTo(BeEmpty())
		Expect(accounts(email)).To(Equal(1))
		Expect(db.Int(`SELECT count(DISTINCT s.account_id) FROM sessions s JOIN accounts ac ON ac.id = s.account_id
			WHERE ac.email = lower($1)`, email)).To(Equal(1))
		Expect(db.Int(`SELECT count(*) FROM sessions s JOIN accounts ac ON ac.id = s.account_id
			WHERE ac.email = lower($1)`, email)).To(Equal(len(credentials)), "a session for each credential, all on that account")
	})
})
