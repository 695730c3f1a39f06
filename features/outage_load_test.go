package features_test

// The load and the record of the PostgreSQL outage spec
// (postgres_outage_test.go): four clients posting to a live form, every
// answer with its times, and the outages' windows to hold them against.

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
)

// outagePost is one post of the load and formd's answer to it.
type outagePost struct {
	marker         string
	sent, answered time.Time
	// status is 0 when no answer came (the connection failed).
	status     int
	retryAfter string
	deliveryID string
}

// outageWindow is one outage: down is when the server had stopped, up when
// its start began, back when it accepted connections again (its crash
// recovery done).
type outageWindow struct{ down, up, back time.Time }

// whileDown reports whether the post was sent and answered between the
// server's stop and its start: no commit can happen then. (A post in flight
// at the crash may have committed before it.)
func (w outageWindow) whileDown(p outagePost) bool {
	return !p.sent.Before(w.down) && !p.answered.After(w.up)
}

// whileUnreachable reports whether the post was sent and answered while the
// server accepted no connection: stopped, or recovering from the crash.
func (w outageWindow) whileUnreachable(p outagePost) bool {
	return !p.sent.Before(w.down) && !p.answered.After(w.back)
}

// outageLoad posts from four clients, and a fifth on a clock, until
// stopped, recording every answer.
type outageLoad struct {
	mu    sync.Mutex
	posts []outagePost
	stop  chan struct{}
	wg    sync.WaitGroup
}

// markerPattern finds a post's marker in the notification of its submission.
var markerPattern = regexp.MustCompile(`outage-[0-9]+-[0-9]+`)

// startOutageLoad starts the clients posting to the form of accessKey.
func startOutageLoad(f *Formd, accessKey string) *outageLoad {
	load := &outageLoad{stop: make(chan struct{})}
	for client := range 4 {
		load.wg.Add(1)
		go func() {
			defer GinkgoRecover()
			defer load.wg.Done()
			for n := 0; ; n++ {
				select {
				case <-load.stop:
					return
				default:
				}
				p := postRecorded(f, accessKey, fmt.Sprintf("outage-%d-%d", client, n))
				load.mu.Lock()
				load.posts = append(load.posts, p)
				load.mu.Unlock()
				if p.status != http.StatusOK {
					time.Sleep(10 * time.Millisecond) // as a client that retries would
				}
			}
		}()
	}
	// A fifth client sends a post every 50 ms without waiting for the last
	// answer: the four above may all be waiting on commits in flight at a
	// crash, and an outage must still meet new posts.
	load.wg.Add(1)
	go func() {
		defer GinkgoRecover()
		defer load.wg.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		var sent sync.WaitGroup
		defer sent.Wait()
		for n := 0; ; n++ {
			select {
			case <-load.stop:
				return
			case <-tick.C:
			}
			sent.Add(1)
			go func() {
				defer GinkgoRecover()
				defer sent.Done()
				p := postRecorded(f, accessKey, fmt.Sprintf("outage-%d-%d", 4, n))
				load.mu.Lock()
				load.posts = append(load.posts, p)
				load.mu.Unlock()
			}()
		}
	}()
	return load
}

// Stop stops the clients and returns every post, in the order answered.
func (load *outageLoad) Stop() []outagePost {
	close(load.stop)
	load.wg.Wait()
	return load.posts
}

// acceptedSince reports whether a post sent at t or later was answered 200,
// and when the first of them was.
func (load *outageLoad) acceptedSince(t time.Time) (time.Time, bool) {
	load.mu.Lock()
	defer load.mu.Unlock()
	for _, p := range load.posts {
		if p.status == http.StatusOK && !p.sent.Before(t) {
			return p.answered, true
		}
	}
	return time.Time{}, false
}

// postRecorded posts one live submission carrying marker and records the answer.
func postRecorded(f *Formd, accessKey, marker string) outagePost {
	p := outagePost{marker: marker, sent: time.Now()}
	body := fmt.Sprintf(`{"access_key":%q,"message":%q}`, accessKey, marker)
	req, err := http.NewRequest(http.MethodPost, f.URL+"/submit", strings.NewReader(body))
	if err != nil {
		p.answered = time.Now()
		return p
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://example.com")
	resp, err := f.client.Do(req)
	p.answered = time.Now()
	if err != nil {
		return p
	}
	defer resp.Body.Close()
	p.status = resp.StatusCode
	p.retryAfter = resp.Header.Get("Retry-After")
	if p.status == http.StatusOK {
		var out struct {
			DeliveryID string `json:"deliveryId"`
		}
		if decodeJSONBody(resp, &out) == nil {
			p.deliveryID = out.DeliveryID
		}
	}
	return p
}

// outageFigures is what the spec asserts on, gathered before any assertion so
// that a failure report carries all of them.
type outageFigures struct {
	posts, accepted int
	statuses        map[int]int
	// okWhileDown are 200s to posts sent and answered while the server was down.
	okWhileDown []outagePost
	// outageAnswers are 5xx answers to posts sent and answered while the
	// server accepted no connection; outageWithoutRetryAfter those of them
	// lacking Retry-After.
	outageAnswers, outageWithoutRetryAfter int
	// otherErrorsWithoutRetryAfter are 5xx answers to posts in flight at a
	// crash or at a return, lacking Retry-After.
	otherErrorsWithoutRetryAfter int
	// slowestError is the longest a 5xx answer took: an outage answer
	// should come fast, not after a connection timeout.
	slowestError time.Duration
	// undelivered are delivery ids of 200s whose mail never arrived, and
	// unmarked those whose mail did not show the post's marker (so that
	// committedButRefused could not be told).
	undelivered, unmarked []string
	// sentTwice are Message-IDs received more than once.
	sentTwice map[string]int
	// committedButRefused are markers of posts not answered 200 whose
	// submission was delivered all the same: commits whose outcome formd did
	// not know when it answered. committedWithoutRetryAfter are those of them
	// whose answer did not tell the client to retry (with the same
	// Idempotency-Key, which then returns the original answer).
	committedButRefused        []string
	committedWithoutRetryAfter int
	// unsettled are deliveries still queued or claimed after the settling
	// wait, and unsettledSent those of them whose mail was already received
	// then: each of those is sent a second time once its lease ends.
	unsettled, unsettledSent int
}

// figure gathers the figures of a run.
func figure(posts []outagePost, windows []outageWindow, mails []Mail) outageFigures {
	fig := outageFigures{posts: len(posts), statuses: map[int]int{}, sentTwice: map[string]int{}}
	received := messageIDs(mails)
	deliveredMarkers := map[string]bool{}
	for _, m := range mails {
		if marker := markerPattern.FindString(m.Text); marker != "" {
			deliveredMarkers[marker] = true
		}
	}
	for id, n := range received {
		if n > 1 {
			fig.sentTwice[id] = n
		}
	}
	for _, p := range posts {
		fig.statuses[p.status]++
		down, unreachable := false, false
		for _, w := range windows {
			down = down || w.whileDown(p)
			unreachable = unreachable || w.whileUnreachable(p)
		}
		switch {
		case p.status == http.StatusOK:
			fig.accepted++
			if down {
				fig.okWhileDown = append(fig.okWhileDown, p)
			}
			if received[p.deliveryID+"@formd"] == 0 {
				fig.undelivered = append(fig.undelivered, p.deliveryID)
			} else if !deliveredMarkers[p.marker] {
				fig.unmarked = append(fig.unmarked, p.deliveryID)
			}
		case deliveredMarkers[p.marker]:
			fig.committedButRefused = append(fig.committedButRefused, fmt.Sprintf("%s (%d, Retry-After %q)", p.marker, p.status, p.retryAfter))
			if p.retryAfter == "" {
				fig.committedWithoutRetryAfter++
			}
		}
		if p.status >= 500 {
			fig.slowestError = max(fig.slowestError, p.answered.Sub(p.sent))
			switch {
			case unreachable:
				fig.outageAnswers++
				if p.retryAfter == "" {
					fig.outageWithoutRetryAfter++
				}
			case p.retryAfter == "":
				fig.otherErrorsWithoutRetryAfter++
			}
		}
	}
	return fig
}

// messageIDs counts the mails of each Message-ID (without its angle brackets).
func messageIDs(mails []Mail) map[string]int {
	ids := map[string]int{}
	for _, m := range mails {
		ids[strings.Trim(m.Header.Get("Message-Id"), "<>")]++
	}
	return ids
}

// String is the figures as the spec's report shows them.
func (fig outageFigures) String() string {
	return fmt.Sprintf("%d posts, %d answered 200; answers by status (0: no answer) %v\n"+
		"200 while down: %d; outage answers (5xx while unreachable): %d, %d without Retry-After; 5xx at a crash or return without Retry-After: %d; slowest 5xx: %s\n"+
		"200s not delivered: %d; mails received more than once: %d; committed but not answered 200: %d %v\n"+
		"deliveries left queued or claimed: %d, %d of them already sent",
		fig.posts, fig.accepted, fig.statuses,
		len(fig.okWhileDown), fig.outageAnswers, fig.outageWithoutRetryAfter, fig.otherErrorsWithoutRetryAfter, fig.slowestError.Round(time.Millisecond),
		len(fig.undelivered), len(fig.sentTwice), len(fig.committedButRefused), fig.committedButRefused,
		fig.unsettled, fig.unsettledSent)
}
