package features_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// crashCycles is how many times the crash spec kills formd: a few in
// `make test`, FORMD_CHAOS_CYCLES (20 in `make chaos`) when set.
func crashCycles() int {
	if n, err := strconv.Atoi(os.Getenv("FORMD_CHAOS_CYCLES")); err == nil && n > 0 {
		return n
	}
	return 3
}

// Restart kills formd with SIGKILL (no shutdown, no flush: a crash) and
// starts it again on the same port, database, data directory and SMTP server.
func (f *Formd) Restart() {
	GinkgoHelper()
	Expect(f.Session.Command.Process.Signal(syscall.SIGKILL)).To(Succeed())
	Eventually(f.Session.Exited).WithTimeout(10 * time.Second).Should(BeClosed())
	f.client.CloseIdleConnections()
	Expect(f.start()).To(BeTrue(), "formd starts again after the crash")
}

var _ = Describe("Crashes", func() {
	It("lose no accepted submission: every 200 is delivered once formd is back, and nothing stays queued", func() {
		// Thousands of posts to one form over the cycles: past the free plan's quota.
		f := StartFormd("FORMD_QUOTA_FREE=2000000000")
		lf := f.LiveForm(nil)
		db := f.OpenDB()

		var (
			mu       sync.Mutex
			accepted []string // delivery ids of the notifications of submissions answered 200
			sent     int
		)
		cycles := crashCycles()
		for cycle := range cycles {
			By(fmt.Sprintf("cycle %d of %d: posting from 4 clients, then SIGKILL at a random moment", cycle+1, cycles))
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for client := range 4 {
				wg.Add(1)
				go func() {
					defer GinkgoRecover()
					defer wg.Done()
					for n := 0; ; n++ {
						select {
						case <-stop:
							return
						default:
						}
						id, ok := postQuietly(f, lf.AccessKey, fmt.Sprintf("c%d-%d-%d", cycle, client, n))
						mu.Lock()
						sent++
						if ok {
							accepted = append(accepted, id)
						}
						mu.Unlock()
						if !ok {
							time.Sleep(20 * time.Millisecond) // formd is down: wait for the restart
						}
					}
				}()
			}
			time.Sleep(time.Duration(100+rand.IntN(400)) * time.Millisecond)
			f.Restart()
			time.Sleep(100 * time.Millisecond) // some submissions against the new process too
			close(stop)
			wg.Wait()
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(GinkgoWriter, "%d posts, %d answered 200 over %d crashes\n", sent, len(accepted), cycles)
		Expect(accepted).NotTo(BeEmpty())

		By("every notification of a 200 arriving at the SMTP server (a duplicate has the same Message-ID)")
		Eventually(func() []string {
			received := map[string]bool{}
			for _, m := range f.Mail.To(lf.Recipient) {
				received[strings.Trim(m.Header.Get("Message-Id"), "<>")] = true
			}
			var missing []string
			for _, id := range accepted {
				if !received[id+"@formd"] {
					missing = append(missing, id)
				}
			}
			return missing
		}).WithTimeout(60*time.Second).WithPolling(200*time.Millisecond).Should(BeEmpty(), "notifications never delivered")

		By("nothing left queued or unprojected")
		Eventually(func() int {
			return db.Int(`SELECT count(*) FROM deliveries WHERE status NOT IN ('succeeded', 'failed')`) +
				db.Int(`SELECT count(*) FROM events e WHERE e.event_type = 'delivery.queued.v1'
					AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.id = e.stream_id)`) +
				db.Int(`SELECT count(*) FROM events e, jsonb_array_elements(e.data -> 'deliveries') q
					WHERE e.event_type = 'submission.accepted.v1'
					AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.id = (q ->> 'id')::uuid)`)
		}).WithTimeout(30 * time.Second).Should(BeZero())
		Expect(db.Int(`SELECT count(*) FROM deliveries WHERE status = 'failed'`)).To(BeZero())
	})
})

// postQuietly posts one live submission and reports its notification's
// delivery id when formd answered 200; a post cut off by a crash is simply
// not accepted (the client never saw a 200).
func postQuietly(f *Formd, accessKey, marker string) (string, bool) {
	body := fmt.Sprintf(`{"access_key":%q,"message":%q}`, accessKey, marker)
	req, err := http.NewRequest(http.MethodPost, f.URL+"/submit", strings.NewReader(body))
	if err != nil {
		return "", false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://example.com")
	resp, err := f.client.Do(req)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", false
	}
	var out struct {
		DeliveryID string `json:"deliveryId"`
	}
	if err := decodeJSONBody(resp, &out); err != nil || out.DeliveryID == "" {
		return "", false
	}
	return out.DeliveryID, true
}

func decodeJSONBody(resp *http.Response, v any) error {
	return json.NewDecoder(resp.Body).Decode(v)
}
