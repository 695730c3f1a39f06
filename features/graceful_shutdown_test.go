package features_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// shutdownClients is how many keep-alive clients post while formd drains.
const shutdownClients = 16

// refusedAtConnect tells a refusal at connect (the listener had closed,
// nothing was sent) from a request lost on its connection (a reset, an EOF
// or any other failure after it went out): only the first is what a
// draining server may do to a client.
func refusedAtConnect(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// drainLoad is what the clients posted and saw.
type drainLoad struct {
	mu       sync.Mutex
	accepted map[string]string // delivery id of a 200's notification → the marker it was posted with
	statuses map[int]int
	refusals int
	failures []string
}

// post sends one submission marked marker on client and records what came back;
// it reports whether the client should go on.
func (l *drainLoad) post(client *http.Client, url, accessKey, marker string) bool {
	body := fmt.Sprintf(`{"access_key":%q,"message":%q}`, accessKey, marker)
	req, err := http.NewRequest(http.MethodPost, url+"/submit", strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://example.com")
	resp, err := client.Do(req)
	var raw []byte
	if err == nil {
		raw, err = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		if refusedAtConnect(err) {
			l.refusals++
		} else {
			l.failures = append(l.failures, fmt.Sprintf("%s: %v", marker, err))
		}
		return false
	}
	l.statuses[resp.StatusCode]++
	if resp.StatusCode == http.StatusOK {
		var out struct {
			DeliveryID string `json:"deliveryId"`
		}
		Expect(json.Unmarshal(raw, &out)).To(Succeed(), "%s", raw)
		l.accepted[out.DeliveryID] = marker
	}
	return true
}

var _ = Describe("Graceful shutdown", func() {
	It("drains at SIGTERM under load: no request cut off, exit 0, and every 200 delivered once formd is back", func() {
		const timeout = 10 * time.Second
		f := StartFormd("FORMD_QUOTA_FREE=2000000000", fmt.Sprintf("FORMD_SHUTDOWN_TIMEOUT=%s", timeout))
		lf := f.LiveForm(nil)

		By(fmt.Sprintf("posting from %d keep-alive clients without Idempotency-Key", shutdownClients))
		load := &drainLoad{accepted: map[string]string{}, statuses: map[int]int{}}
		var clients sync.WaitGroup
		for c := range shutdownClients {
			// A client of its own per poster: its one connection is reused
			// from request to request, as a browser's or a proxy's would be.
			client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			DeferCleanup(client.CloseIdleConnections)
			clients.Go(func() {
				defer GinkgoRecover()
				for n := 0; load.post(client, f.URL, lf.AccessKey, fmt.Sprintf("drain-%d-%d", c, n)); n++ {
				}
			})
		}

		By("watching GET /readyz on a keep-alive connection of its own")
		var readiness []string
		probeDone := make(chan struct{})
		prober := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
		DeferCleanup(prober.CloseIdleConnections)
		go func() {
			defer GinkgoRecover()
			defer close(probeDone)
			for {
				resp, err := prober.Get(f.URL + "/readyz")
				if err != nil {
					readiness = append(readiness, fmt.Sprintf("error %v", err))
					return
				}
				var body struct{ Status string }
				_ = json.NewDecoder(resp.Body).Decode(&body)
				_ = resp.Body.Close()
				readiness = append(readiness, fmt.Sprintf("%d %s", resp.StatusCode, body.Status))
				time.Sleep(5 * time.Millisecond)
			}
		}()

		By("keeping one more keep-alive connection idle across the signal, as a client pausing between posts does")
		paused, err := net.Dial("tcp", strings.TrimPrefix(f.URL, "http://"))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(paused.Close)
		pausedReader := bufio.NewReader(paused)
		pausedPost := func(marker string) (*http.Response, error) {
			body := fmt.Sprintf(`{"access_key":%q,"message":%q}`, lf.AccessKey, marker)
			req, err := http.NewRequest(http.MethodPost, f.URL+"/submit", strings.NewReader(body))
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Origin", "https://example.com")
			Expect(paused.SetDeadline(time.Now().Add(30 * time.Second))).To(Succeed())
			if err := req.Write(paused); err != nil {
				return nil, err
			}
			resp, err := http.ReadResponse(pausedReader, req)
			if err != nil {
				return nil, err
			}
			raw, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				var out struct {
					DeliveryID string `json:"deliveryId"`
				}
				Expect(json.Unmarshal(raw, &out)).To(Succeed(), "%s", raw)
				load.mu.Lock()
				load.accepted[out.DeliveryID] = marker
				load.mu.Unlock()
			}
			return resp, err
		}
		first, err := pausedPost("drain-paused-1")
		Expect(err).NotTo(HaveOccurred())
		Expect(first.StatusCode).To(Equal(http.StatusOK))
		Expect(first.Close).To(BeFalse(), "the connection is kept alive")

		Eventually(func() int { load.mu.Lock(); defer load.mu.Unlock(); return len(load.accepted) }).
			WithTimeout(10*time.Second).Should(BeNumerically(">=", 8*shutdownClients), "the load is under way")
		By("sending SIGTERM mid-load")
		signalled := time.Now()
		Expect(f.Session.Command.Process.Signal(syscall.SIGTERM)).To(Succeed())
		time.Sleep(100 * time.Millisecond)
		By("the paused client posting again on its idle connection: answered in full, and told to close it")
		second, err := pausedPost("drain-paused-2")
		Expect(err).NotTo(HaveOccurred(), "a post on a keep-alive connection idle at the signal")
		Expect(second.StatusCode).To(Equal(http.StatusOK))
		Expect(second.Close).To(BeTrue(), "Connection: close while draining")
		Eventually(f.Session).WithTimeout(timeout + 5*time.Second).Should(gexec.Exit(0))
		drainTook := time.Since(signalled)
		clients.Wait()
		<-probeDone

		load.mu.Lock()
		defer load.mu.Unlock()
		report := fmt.Sprintf("drain took %s; %d answered 200, statuses %v, %d refused at connect, %d cut off; readiness seen: %s",
			drainTook.Round(time.Millisecond), len(load.accepted), load.statuses, load.refusals, len(load.failures), summarizeRuns(readiness))
		AddReportEntry("Graceful shutdown", report)
		fmt.Fprintln(GinkgoWriter, report)

		By("every request answered in full or refused at connect: no reset, no EOF")
		Expect(load.failures).To(BeEmpty(), "%s", report)
		Expect(load.refusals).To(Equal(shutdownClients), "each client ends on a refused connection: %s", report)
		Expect(drainTook).To(BeNumerically("<", timeout), "within FORMD_SHUTDOWN_TIMEOUT")
		Expect(string(f.Session.Err.Contents())).NotTo(ContainSubstring("drained at the deadline"))

		By("GET /readyz saying 503 draining once the drain began, then its connection refused")
		Expect(readiness).To(ContainElement("503 draining"), "%s", report)
		for _, r := range readiness {
			Expect(r).To(Or(Equal("200 ready"), Equal("503 draining"), ContainSubstring("connection refused")), "%s", report)
		}

		By("starting formd again on the same database: every 200's notification arrives, with its marker")
		Expect(f.start()).To(BeTrue(), "formd starts again after the drain")
		Eventually(func() []string {
			received := map[string]string{}
			for _, m := range f.Mail.To(lf.Recipient) {
				received[strings.Trim(m.Header.Get("Message-Id"), "<>")] = m.Text
			}
			var missing []string
			for id, marker := range load.accepted {
				if text, ok := received[id+"@formd"]; !ok || !strings.Contains(text, marker) {
					missing = append(missing, marker)
				}
			}
			return missing
		}).WithTimeout(20*time.Second).WithPolling(200*time.Millisecond).Should(BeEmpty(), "notifications of 200s never delivered")
	})
})

// summarizeRuns collapses runs of equal readiness answers: "200 ready ×41, 503 draining ×1, …".
func summarizeRuns(seen []string) string {
	var out []string
	for i := 0; i < len(seen); {
		j := i
		for j < len(seen) && seen[j] == seen[i] {
			j++
		}
		out = append(out, fmt.Sprintf("%s ×%d", seen[i], j-i))
		i = j
	}
	return strings.Join(out, ", ")
}
