package features_test

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// webhookCall is one request a webhook receiver got.
type webhookCall struct {
	Path   string
	Method string
	Header http.Header
	Body   []byte
	// At is when the receiver got the call.
	At time.Time
}

// JSON decodes the call's body, failing the spec when it is no JSON object.
func (c webhookCall) JSON() map[string]any {
	GinkgoHelper()
	var v map[string]any
	Expect(json.Unmarshal(c.Body, &v)).To(Succeed(), "webhook body %s", c.Body)
	return v
}

// webhookReceiver is an HTTPS server on 127.0.0.1 that records every call.
// Paths choose its answer: /flaky answers 500 to its first call and 204
// after; /hold waits until release is closed; /gone answers 410;
// /unavailable always answers 503; /redirect answers 307 to /redirected;
// /broken answers 410 until Fix is called, 204 after; anything else
// answers 204.
type webhookReceiver struct {
	server  *httptest.Server
	caFile  string
	mu      sync.Mutex
	calls   []webhookCall
	flaky   int
	busy    int
	held    chan struct{}
	release chan struct{}
	fixed   bool
}

// Fix makes /broken answer 204 from now on.
func (wr *webhookReceiver) Fix() {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	wr.fixed = true
}

// busyRetryAfter is the Retry-After, in seconds, of /busy's first answer.
const busyRetryAfter = 7

func startWebhookReceiver() *webhookReceiver {
	GinkgoHelper()
	wr := &webhookReceiver{held: make(chan struct{}, 16), release: make(chan struct{})}
	wr.server = httptest.NewTLSServer(http.HandlerFunc(wr.serve))
	DeferCleanup(wr.server.Close)
	DeferCleanup(wr.releaseAll) // before the server closes: nothing stays held
	wr.caFile = filepath.Join(GinkgoT().TempDir(), "webhook-ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: wr.server.Certificate().Raw})
	Expect(os.WriteFile(wr.caFile, pemBytes, 0o600)).To(Succeed())
	return wr
}

func (wr *webhookReceiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	wr.mu.Lock()
	wr.calls = append(wr.calls, webhookCall{Path: r.URL.Path, Method: r.Method, Header: r.Header.Clone(), Body: body, At: time.Now()})
	status := http.StatusNoContent
	if r.URL.Path == "/flaky" {
		wr.flaky++
		if wr.flaky == 1 {
			status = http.StatusInternalServerError
		}
	}
	if r.URL.Path == "/busy" {
		wr.busy++
		if wr.busy == 1 {
			// Longer than the schedule's first wait with the most jitter
			// (6 s), so only an honoured Retry-After explains the wait.
			w.Header().Set("Retry-After", strconv.Itoa(busyRetryAfter))
			status = http.StatusServiceUnavailable
		}
	}
	if r.URL.Path == "/broken" && !wr.fixed {
		status = http.StatusGone
	}
	wr.mu.Unlock()
	switch r.URL.Path {
	case "/hold":
		wr.held <- struct{}{}
		<-wr.release
	case "/gone":
		status = http.StatusGone
	case "/unavailable":
		status = http.StatusServiceUnavailable
	case "/redirect":
		w.Header().Set("Location", wr.URL("/redirected"))
		status = http.StatusTemporaryRedirect
	}
	w.WriteHeader(status)
}

func (wr *webhookReceiver) releaseAll() {
	select {
	case <-wr.release:
	default:
		close(wr.release)
	}
}

// URL is the receiver's address for path.
func (wr *webhookReceiver) URL(path string) string { return wr.server.URL + path }

// Calls returns the calls to path so far.
func (wr *webhookReceiver) Calls(path string) []webhookCall {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	var out []webhookCall
	for _, c := range wr.calls {
		if c.Path == path {
			out = append(out, c)
		}
	}
	return out
}

var _ = Describe("Delivering a submission", func() {
	It("emails the recipient the submitted fields, then redacts the payload", func() {
		f := shared
		db := f.OpenDB()
		lf := f.LiveForm(nil)
		marker := "needle-" + randomHex(12)
		r := f.Post("", "/submit", orderedJSON("access_key", lf.AccessKey, "name", "Ada Lovelace", "topic", "Engines",
			"message", "Line one\nLine two "+marker), fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		deliveryID := r.JSON["deliveryId"].(string)
		submissionID := db.AcceptedByRequest(r.RequestID()).StreamID

		By("the recipient receiving the notification, named by its delivery id")
		m := f.Mail.WaitForMail(lf.Recipient)
		Expect(m.Header.Get("Message-Id")).To(ContainSubstring(deliveryID))
		Expect(m.From).To(Equal("formd@test.local"))
		Expect(m.Text).To(ContainSubstring("name: Ada Lovelace"))
		Expect(m.Text).To(ContainSubstring("topic: Engines"))
		Expect(m.Text).To(ContainSubstring("Line one"))
		Expect(m.Text).To(ContainSubstring("Line two " + marker))
		Expect(m.Text).NotTo(ContainSubstring(lf.AccessKey))

		By("the payload being deleted and the redaction recorded once the delivery is final")
		Eventually(func() int { return db.PayloadCount(submissionID) }).WithTimeout(5 * time.Second).Should(BeZero())
		Eventually(func() []DBEvent {
			return db.Events(`event_type = 'submission.redacted.v1' AND stream_id = $1`, submissionID)
		}).WithTimeout(5 * time.Second).Should(HaveLen(1))
		row, ok := db.Delivery(deliveryID)
		Expect(ok).To(BeTrue(), "a deliveries row for %s", deliveryID)
		Expect(row).To(Equal(DeliveryRow{Kind: "email", Status: "succeeded", Attempts: 1}))
		Expect(db.Events(`event_type = 'delivery.succeeded.v1' AND stream_id = $1`, deliveryID)).To(HaveLen(1))

		By("the value being nowhere in the database afterwards")
		Expect(db.TablesHolding(marker)).To(BeEmpty())
		Expect(db.Int(`SELECT count(*) FROM submission_payloads WHERE form_id = $1`, lf.ID)).To(BeZero())
	})

	It("refuses a per-submit webhook without the per_submit_webhook entitlement", func() {
		f := shared
		db := f.OpenDB()
		lf := f.LiveForm(nil)
		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hello",
			"webhook": "https://hooks.example.com/formd"}, fromExampleCom())
		ExpectError(r, http.StatusBadRequest, "entitlement")
		Expect(db.AcceptedSubmissions(lf.ID)).To(BeEmpty())
	})

	It("never dials a per-submit webhook on a loopback address", func() {
		f := shared // started without FORMD_WEBHOOK_ALLOW_PRIVATE
		db := f.OpenDB()
		listener, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(listener.Close)
		var dialled atomic.Int32
		go func() {
			for {
				c, err := listener.Accept()
				if err != nil {
					return
				}
				dialled.Add(1)
				_ = c.Close()
			}
		}()

		lf := f.LiveForm(nil)
		f.Grant(lf.OwnerEmail, "per_submit_webhook")
		r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hello",
			"webhook": "https://" + listener.Addr().String() + "/hook"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		webhookID := r.Array("webhookDeliveryIds")[0].(string)
		// Security review: a refused address used to be retried 8 times; it
		// stays refused, so the delivery fails at once.
		Eventually(func() string { row, _ := db.Delivery(webhookID); return row.Status }).
			WithTimeout(10 * time.Second).Should(Equal("failed"))
		Expect(dialled.Load()).To(BeZero(), "the connection is refused before it is made")
		mailWithID(f, lf.Recipient, r.JSON["deliveryId"].(string))
	})

	Describe("to a per-submit webhook", Ordered, func() {
		var f *Formd
		var db *DB
		var receiver *webhookReceiver
		var lf LiveForm

		BeforeAll(func() {
			receiver = startWebhookReceiver()
			f = StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
			db = f.OpenDB()
			lf = f.LiveForm(nil)
			f.Grant(lf.OwnerEmail, "per_submit_webhook")
		})

		It("posts only the custom fields as JSON, with the delivery id as webhook-id", func() {
			submitter := UniqueEmail("visitor")
			r := f.Post("", "/submit", map[string]any{
				"access_key": lf.AccessKey, "name": "Ada Lovelace", "email": submitter, "message": "Hello",
				"botcheck": "", "webhook": receiver.URL("/ok"), "subject": "Hi", "from_name": "Ada",
				"replyto": submitter, "h-captcha-response": "token",
			}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			Expect(r.Array("webhookDeliveryIds")).To(HaveLen(1))
			webhookID := r.Array("webhookDeliveryIds")[0].(string)
			Expect(webhookID).To(MatchRegexp(uuidPattern))
			Expect(webhookID).NotTo(Equal(r.JSON["deliveryId"]))
			accepted := db.AcceptedByRequest(r.RequestID())
			Expect(deliveryRefs(accepted)).To(ConsistOf("email="+r.JSON["deliveryId"].(string), "webhook="+webhookID))

			By("the receiver getting one JSON POST")
			Eventually(func() []webhookCall { return receiver.Calls("/ok") }).WithTimeout(10 * time.Second).Should(HaveLen(1))
			call := receiver.Calls("/ok")[0]
			Expect(call.Method).To(Equal(http.MethodPost))
			Expect(call.Header.Get("webhook-id")).To(Equal(webhookID))
			Expect(call.Header.Get("Content-Type")).To(HavePrefix("application/json"))
			body := call.JSON()
			Expect(body).To(HaveKeyWithValue("deliveryId", webhookID))
			Expect(body).To(HaveKeyWithValue("submissionId", accepted.StreamID))
			Expect(body).To(HaveKeyWithValue("formId", lf.ID))
			Expect(body).To(HaveKeyWithValue("data", Equal(map[string]any{
				"name": "Ada Lovelace", "email": submitter, "message": "Hello",
			})), "routing fields, the honeypot and captcha tokens are not forwarded")
			Expect(string(call.Body)).NotTo(ContainSubstring(lf.AccessKey))

			By("the delivery succeeding once, and the payload being redacted after both deliveries")
			Eventually(func() string { row, _ := db.Delivery(webhookID); return row.Status }).
				WithTimeout(5 * time.Second).Should(Equal("succeeded"))
			Eventually(func() int { return db.PayloadCount(accepted.StreamID) }).WithTimeout(5 * time.Second).Should(BeZero())
			Consistently(func() []webhookCall { return receiver.Calls("/ok") }).
				WithTimeout(300 * time.Millisecond).Should(HaveLen(1))
		})

		It("keeps the sealed payload until the last delivery is final", func() {
			r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hold on",
				"webhook": receiver.URL("/hold")}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			submissionID := db.AcceptedByRequest(r.RequestID()).StreamID
			webhookID := r.Array("webhookDeliveryIds")[0].(string)

			By("the receiver holding the webhook call")
			Eventually(receiver.held).WithTimeout(10 * time.Second).Should(Receive())
			Expect(db.PayloadCount(submissionID)).To(Equal(1))
			Expect(db.Events(`event_type = 'submission.redacted.v1' AND stream_id = $1`, submissionID)).To(BeEmpty())

			By("the receiver answering")
			receiver.releaseAll()
			Eventually(func() int { return db.PayloadCount(submissionID) }).WithTimeout(10 * time.Second).Should(BeZero())
			Expect(db.Events(`event_type = 'submission.redacted.v1' AND stream_id = $1`, submissionID)).To(HaveLen(1))
			row, _ := db.Delivery(webhookID)
			Expect(row.Status).To(Equal("succeeded"))
		})

		It("gives up at once when the receiver answers a 4xx such as 410", func() {
			r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Gone",
				"webhook": receiver.URL("/gone")}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			submissionID := db.AcceptedByRequest(r.RequestID()).StreamID
			webhookID := r.Array("webhookDeliveryIds")[0].(string)

			Eventually(func() string { row, _ := db.Delivery(webhookID); return row.Status }).
				WithTimeout(10 * time.Second).Should(Equal("failed"))
			row, _ := db.Delivery(webhookID)
			Expect(row.Attempts).To(Equal(1))
			Expect(row.LastError).To(ContainSubstring("410"))
			Expect(db.Events(`event_type = 'delivery.failed.v1' AND stream_id = $1`, webhookID)).To(HaveLen(1))
			Expect(receiver.Calls("/gone")).To(HaveLen(1))

			By("the payload being kept for a retry once the email is delivered too (FORMD_FAILED_PAYLOAD_RETENTION)")
			Eventually(func() int {
				return db.Int(`SELECT count(*) FROM submission_payloads WHERE submission_id = $1 AND pending = 0
					AND keep_until > now() + interval '6 days'`, submissionID)
			}).WithTimeout(10 * time.Second).Should(Equal(1))
			Expect(db.Events(`event_type = 'submission.redacted.v1' AND stream_id = $1`, submissionID)).To(BeEmpty())
		})

		It("does not follow a redirect from the receiver", func() {
			r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Moved",
				"webhook": receiver.URL("/redirect")}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			webhookID := r.Array("webhookDeliveryIds")[0].(string)
			Eventually(func() []webhookCall { return receiver.Calls("/redirect") }).WithTimeout(10 * time.Second).Should(HaveLen(1))
			Eventually(func() int { row, _ := db.Delivery(webhookID); return row.Attempts }).
				WithTimeout(5 * time.Second).Should(Equal(1))
			row, _ := db.Delivery(webhookID)
			Expect(row.Status).NotTo(Equal("succeeded"), "a redirect is no delivery")
			Expect(receiver.Calls("/redirected")).To(BeEmpty())
		})

		It("retries a webhook whose receiver fails, recording the failed attempt", func() {
			r := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Try again",
				"webhook": receiver.URL("/flaky")}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			submissionID := db.AcceptedByRequest(r.RequestID()).StreamID
			webhookID := r.Array("webhookDeliveryIds")[0].(string)

			Eventually(func() []webhookCall { return receiver.Calls("/flaky") }).WithTimeout(10 * time.Second).Should(HaveLen(1))
			Eventually(func(g Gomega) {
				row, ok := db.Delivery(webhookID)
				g.Expect(ok).To(BeTrue())
				g.Expect(row.Kind).To(Equal("webhook"))
				g.Expect(row.Status).To(Equal("retrying"))
				g.Expect(row.Attempts).To(Equal(1))
				g.Expect(row.LastError).To(ContainSubstring("500"))
			}).WithTimeout(5 * time.Second).Should(Succeed())

			failed := db.Events(`event_type = 'delivery.attempt_failed.v1' AND stream_id = $1`, webhookID)
			Expect(failed).To(HaveLen(1))
			Expect(failed[0].Data).To(HaveKeyWithValue("attempt", BeNumerically("==", 1)))
			next, err := time.Parse(time.RFC3339Nano, failed[0].Data["nextAt"].(string))
			Expect(err).NotTo(HaveOccurred())
			at, err := time.Parse(time.RFC3339Nano, failed[0].Data["at"].(string))
			Expect(err).NotTo(HaveOccurred())
			Expect(next.Sub(at)).To(BeNumerically(">=", 5*time.Second), "the retry waits 5 s (Standard Webhooks schedule)")
			Expect(next.Sub(at)).To(BeNumerically("<", 6*time.Second), "with at most a fifth more as jitter")
			Expect(db.PayloadCount(submissionID)).To(Equal(1), "the payload waits for the retry")
			Expect(db.Events(`event_type = 'submission.redacted.v1' AND stream_id = $1`, submissionID)).To(BeEmpty())
		})
	})
})

var _ = Describe("Delivering while receivers are slow", func() {
	// A delivery attempt holds one of the process's attempt slots for as long
	// as its receiver takes to answer (up to the webhook timeout). With four
	// slots, four slow webhooks would hold up every other form's mail.
	It("keeps sending other forms' mail while eight webhooks wait on their receiver", func() {
		receiver := startWebhookReceiver()
		f := StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile)
		slow := f.LiveForm(nil)
		f.Grant(slow.OwnerEmail, "per_submit_webhook")
		other := f.LiveForm(nil)

		By("eight submissions whose webhooks the receiver holds without answering")
		for i := range 8 {
			r := f.Post("", "/submit", map[string]any{"access_key": slow.AccessKey, "message": fmt.Sprintf("Slow %d", i),
				"webhook": receiver.URL("/hold")}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		}
		for i := range 8 {
			Eventually(receiver.held).WithTimeout(10*time.Second).Should(Receive(), "held webhook call %d of 8", i+1)
		}

		By("another form's notification arriving while all eight are still held")
		r := f.Post("", "/submit", map[string]any{"access_key": other.AccessKey, "message": "Not stuck"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		m := mailWithID(f, other.Recipient, r.JSON["deliveryId"].(string))
		Expect(m.Text).To(ContainSubstring("Not stuck"))
		Expect(receiver.Calls("/hold")).To(HaveLen(8), "no held call was answered, so none was retried")
	})
})
