package features_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// What a post costs follows what it is allowed to do (SECURITY.md): many
// slow multipart posts with large files, sent to a key that names no form
// or with their key after the files, must neither grow formd's memory nor
// keep other clients' submissions out.
var _ = Describe("Memory under a flood of slow multipart posts", Ordered, func() {
	var f *Formd
	var sf *submitForm
	var tmp string

	BeforeAll(func() {
		tmp = GinkgoT().TempDir()
		f = StartFormd("TMPDIR=" + tmp)
		sf = verifiedSubmitForm(f, nil)
	})

	// flood sends clients posts at once, each with two 10 MiB files and its
	// closing boundary held back, and returns the status each was answered
	// with, formd's peak resident memory meanwhile, and how many live
	// submissions another client (127.0.0.2) had accepted, and refused,
	// while they ran.
	flood := func(clients int, keyFirst bool) (statuses []int, peakRSS int64, accepted, refused int64) {
		GinkgoHelper()
		pid := f.Session.Command.Process.Pid
		done := make(chan struct{})
		var live sync.WaitGroup
		live.Add(1)
		go func() {
			defer GinkgoRecover()
			defer live.Done()
			other := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
				DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}).DialContext}}
			defer other.CloseIdleConnections()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				req, _ := http.NewRequest(http.MethodPost, f.URL+sf.Path(), strings.NewReader(`{"message":"live `+strconv.Itoa(i)+`"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Origin", "https://example.com")
				resp, err := other.Do(req)
				if err == nil && resp.StatusCode == http.StatusOK {
					atomic.AddInt64(&accepted, 1)
				} else {
					atomic.AddInt64(&refused, 1)
				}
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()

		statuses = make([]int, clients)
		var wg sync.WaitGroup
		for i := range clients {
			wg.Add(1)
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				statuses[i] = heldBackMultipart(f.URL, keyFirst)
			}()
		}
		sampled := make(chan struct{})
		go func() { wg.Wait(); close(sampled) }()
		Eventually(sampled).WithTimeout(3 * time.Minute).Should(BeClosed())
		close(done)
		live.Wait()
		return statuses, peakResidentBytes(pid), accepted, refused
	}

	It("refuses 300 posts to a key that names no form without buffering their files, and keeps accepting other clients' submissions", func() {
		statuses, peak, accepted, refused := flood(300, true)
		for i, s := range statuses {
			Expect(s).To(BeNumerically(">=", 400), "post %d", i)
			Expect(s).To(BeNumerically("<", 500), "post %d", i)
		}
		Expect(peak).To(BeNumerically("<", 300<<20), "formd's peak resident memory")
		Expect(accepted).To(BeNumerically(">", 0), "live submissions from another client")
		Expect(refused).To(BeZero(), "live submissions refused meanwhile")
	})

	It("bounds one client's files sent before their key, and ends bodies that stall", func() {
		statuses, peak, accepted, refused := flood(40, false)
		counts := map[int]int{}
		for _, s := range statuses {
			counts[s]++
		}
		// Two posts' files fit in a client's 64 MiB; the rest are refused
		// at once, and those that fit stall and are cut off.
		Expect(counts[http.StatusTooManyRequests]).To(BeNumerically(">=", 36), "%v", counts)
		Expect(counts[http.StatusTooManyRequests]+counts[http.StatusRequestTimeout]).To(Equal(40), "%v", counts)
		Expect(peak).To(BeNumerically("<", 300<<20), "formd's peak resident memory")
		Expect(accepted).To(BeNumerically(">", 0), "live submissions from another client")
		Expect(refused).To(BeZero(), "live submissions refused meanwhile")

		By("leaving no temporary file behind")
		Eventually(func() []string { return formdTempFiles(tmp) }).Should(BeEmpty())
	})
})

// heldBackMultipart posts to /submit a multipart body with the access key
// "nonexistent" (first, or after the files) and two 10 MiB files, and never
// sends its closing boundary; it returns the status formd answered with.
func heldBackMultipart(base string, keyFirst bool) int {
	GinkgoHelper()
	const boundary = "formd-flood-boundary"
	const fileBytes = 10 << 20
	key := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"access_key\"\r\n\r\nnonexistent\r\n"
	var parts []string
	for i := range 2 {
		parts = append(parts, fmt.Sprintf("--%s\r\nContent-Disposition: form-data; name=\"file%d\"; filename=\"f%d.txt\"\r\nContent-Type: text/plain\r\n\r\n", boundary, i, i))
	}
	closing := "\r\n--" + boundary + "--\r\n"
	length := len(key) + len(parts[0]) + len(parts[1]) + 2*fileBytes + 2 + len(closing)

	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	Expect(err).NotTo(HaveOccurred())
	defer conn.Close()
	go func() {
		chunk := bytes.Repeat([]byte("a"), 64<<10)
		write := func(s string) bool { _, err := io.WriteString(conn, s); return err == nil }
		if !write(fmt.Sprintf("POST /submit HTTP/1.1\r\nHost: formd\r\nAccept: application/json\r\nOrigin: https://example.com\r\n"+
			"Content-Type: multipart/form-data; boundary=%s\r\nContent-Length: %d\r\n\r\n", boundary, length)) {
			return
		}
		if keyFirst && !write(key) {
			return
		}
		for i, head := range parts {
			if i > 0 && !write("\r\n") {
				return
			}
			if !write(head) {
				return
			}
			for sent := 0; sent < fileBytes; sent += len(chunk) {
				if _, err := conn.Write(chunk); err != nil {
					return
				}
			}
		}
		if !keyFirst {
			write("\r\n" + strings.TrimSuffix(key, "\r\n"))
		}
		// The closing boundary never comes.
	}()
	Expect(conn.SetReadDeadline(time.Now().Add(150 * time.Second))).To(Succeed())
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	Expect(err).NotTo(HaveOccurred(), "an answer to a held-back post")
	defer resp.Body.Close()
	return resp.StatusCode
}

// peakResidentBytes is a process's peak resident memory (VmHWM).
func peakResidentBytes(pid int) int64 {
	GinkgoHelper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	Expect(err).NotTo(HaveOccurred())
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			Expect(err).NotTo(HaveOccurred())
			return kib << 10
		}
	}
	Fail("no VmHWM in /proc/" + strconv.Itoa(pid) + "/status")
	return 0
}

// formdTempFiles lists the files posts being received left in formd's
// temporary directory.
func formdTempFiles(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "formd-upload-") {
			out = append(out, e.Name())
		}
	}
	return out
}
