package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// benchMessage is the ~200-character message of every submission.
const benchMessage = "Hello! I would like to know more about your analytical engine: " +
	"how many variables can the store hold, how long does a multiplication take, " +
	"and could it compose elaborate pieces of music? Best regards, Ada"

// requestTimeout bounds one request; a request that takes longer counts as an error.
const requestTimeout = 10 * time.Second

// loader sends submissions to one formd over a keep-alive client.
type loader struct {
	client *http.Client
	url    string
	body   []byte
	// arrivals is the open loop's schedule (withArrivals; periodic unless set).
	arrivals string
	// ips are the client addresses sent in X-Forwarded-For, in turn (none: no header).
	ips  []string
	next atomic.Uint64
}

// newLoader makes the client, tuned for loopback keep-alive with up to
// maxConns concurrent requests. With clientIPs > 0, requests claim (through
// X-Forwarded-For, as a reverse proxy would) to come from that many
// addresses in turn, so formd's per-IP limit sees many visitors.
func newLoader(baseURL, accessKey string, maxConns, clientIPs int) *loader {
	body, _ := json.Marshal(map[string]string{
		"access_key": accessKey, "name": "Ada Lovelace", "email": "ada@example.com", "message": benchMessage,
	})
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        0, // no overall limit
		MaxIdleConnsPerHost: maxConns + 16,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		WriteBufferSize:     16 << 10,
		ReadBufferSize:      16 << 10,
	}
	l := &loader{client: &http.Client{Transport: tr, Timeout: requestTimeout}, url: baseURL + "/submit", body: body, arrivals: arrivalsPeriodic}
	for i := range clientIPs {
		l.ips = append(l.ips, fmt.Sprintf("10.%d.%d.%d", (i>>16)&255, (i>>8)&255, i&255))
	}
	return l
}

// The open loop's schedules.
const (
	arrivalsPeriodic = "periodic"
	arrivalsPoisson  = "poisson"
)

// withArrivals sets the open loop's schedule and returns l.
func (l *loader) withArrivals(kind string) *loader {
	l.arrivals = kind
	return l
}

// arrivalOffsets are the send times of n requests at rate per second, from
// the loop's start. Periodic sends one every 1/rate. Poisson draws
// exponential gaps of mean 1/rate from a fixed seed, so every run of the same
// rate and length sends on the same schedule: arrivals that bunch and
// spread as independent visitors' do, and as pgbench --rate schedules its
// transactions, whose latencies the report sets beside formd's.
func arrivalOffsets(kind string, rate float64, n int) []time.Duration {
	out := make([]time.Duration, n)
	mean := float64(time.Second) / rate
	rng := rand.New(rand.NewPCG(15, uint64(n)))
	var at float64
	for i := range out {
		out[i] = time.Duration(at)
		if kind == arrivalsPoisson {
			at += rng.ExpFloat64() * mean
		} else {
			at = float64(i+1) * mean
		}
	}
	return out
}

// answer is the outcome of one request.
type answer struct {
	status   int  // 0: no HTTP answer
	accepted bool // 200 with "success": true
	// deliveryID is the notification's delivery id of an accepted submission.
	deliveryID string
	err        error
}

// submit sends one submission and reads its answer completely.
func (l *loader) submit(ctx context.Context) answer {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.url, bytes.NewReader(l.body))
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Origin", benchOrigin)
	if len(l.ips) > 0 {
		req.Header.Set("X-Forwarded-For", l.ips[l.next.Add(1)%uint64(len(l.ips))])
	}
	resp, err := l.client.Do(req)
	if err != nil {
		return answer{err: err}
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	a := answer{status: resp.StatusCode, err: err}
	if err == nil && resp.StatusCode == http.StatusOK {
		var r struct {
			Success    bool   `json:"success"`
			DeliveryID string `json:"deliveryId"`
		}
		if json.Unmarshal(raw, &r) == nil && r.Success {
			a.accepted, a.deliveryID = true, r.DeliveryID
		} else {
			a.err = fmt.Errorf("HTTP 200 without \"success\":true: %.200s", raw)
		}
	} else if err == nil {
		a.err = fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, raw)
	}
	return a
}

// probe checks that a live submission is accepted, retrying for up to 5 s
// (the form cache may still hold the unverified recipient).
func (l *loader) probe(ctx context.Context) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		a := l.submit(ctx)
		if a.accepted {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return a.err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Counts tallies the answers of one phase.
type Counts struct {
	// Sent is the number of requests sent (answered or not).
	Sent int `json:"sent"`
	// Accepted counts 200 answers with "success": true.
	Accepted int `json:"accepted"`
	// Statuses counts every other HTTP answer by status ("200" means 200 without success).
	Statuses map[string]int `json:"rejectedByStatus"`
	// Transport counts requests without an HTTP answer (connection errors, timeouts).
	Transport int `json:"transportErrors"`
	// FirstError describes the first failure, for the report.
	FirstError string `json:"firstError,omitempty"`
}

func (c *Counts) add(a answer) {
	c.Sent++
	switch {
	case a.accepted:
		c.Accepted++
		return
	case a.status == 0:
		c.Transport++
	default:
		if c.Statuses == nil {
			c.Statuses = map[string]int{}
		}
		c.Statuses[fmt.Sprint(a.status)]++
	}
	if c.FirstError == "" && a.err != nil {
		c.FirstError = a.err.Error()
	}
}

func (c *Counts) merge(o Counts) {
	c.Sent += o.Sent
	c.Accepted += o.Accepted
	c.Transport += o.Transport
	for k, v := range o.Statuses {
		if c.Statuses == nil {
			c.Statuses = map[string]int{}
		}
		c.Statuses[k] += v
	}
	if c.FirstError == "" {
		c.FirstError = o.FirstError
	}
}

// Errors is the number of requests that were not accepted.
func (c *Counts) Errors() int { return c.Sent - c.Accepted }

// errorSummary is "none" or e.g. "HTTP 429 ×3, no answer ×1 (first: …)".
func (c *Counts) errorSummary() string {
	if c.Errors() == 0 {
		return "none"
	}
	var parts []string
	keys := make([]string, 0, len(c.Statuses))
	for k := range c.Statuses {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("HTTP %s ×%d", k, c.Statuses[k]))
	}
	if c.Transport > 0 {
		parts = append(parts, fmt.Sprintf("no answer ×%d", c.Transport))
	}
	return strings.Join(parts, ", ") + " (first: " + c.FirstError + ")"
}

// Histogram holds latencies; it is a sorted slice once sorted.
type Histogram []time.Duration

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of a sorted histogram, nearest rank.
func (h Histogram) Quantile(q float64) time.Duration {
	if len(h) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(h)))) - 1
	return h[min(max(i, 0), len(h)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// StepResult is one closed-loop step.
type StepResult struct {
	Concurrency       int     `json:"concurrency"`
	Seconds           float64 `json:"seconds"`
	AcceptedPerSecond float64 `json:"acceptedPerSecond"`
	P50Ms             float64 `json:"p50Ms"`
	P99Ms             float64 `json:"p99Ms"`
	MaxMs             float64 `json:"maxMs"`
	CapReached        bool    `json:"requestCapReached"`
	CPU               *CPUUse `json:"cpu"`
	Counts
}

// closedStep runs c senders back to back until d has passed or limit
// requests were sent; requests in flight at the end are completed and counted.
func (l *loader) closedStep(ctx context.Context, c int, d time.Duration, limit int) *StepResult {
	var issued atomic.Int64
	var wg sync.WaitGroup
	counts := make([]Counts, c)
	lats := make([]Histogram, c)
	start := time.Now()
	end := start.Add(d)
	for w := range c {
		wg.Go(func() {
			for ctx.Err() == nil && time.Now().Before(end) && issued.Add(1) <= int64(limit) {
				t := time.Now()
				a := l.submit(ctx)
				lats[w] = append(lats[w], time.Since(t))
				counts[w].add(a)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	r := &StepResult{Concurrency: c, Seconds: elapsed.Seconds(), CapReached: issued.Load() > int64(limit)}
	var all Histogram
	for w := range c {
		r.Counts.merge(counts[w])
		all = append(all, lats[w]...)
	}
	slices.Sort(all)
	r.AcceptedPerSecond = float64(r.Accepted) / elapsed.Seconds()
	r.P50Ms, r.P99Ms, r.MaxMs = ms(all.Quantile(0.50)), ms(all.Quantile(0.99)), ms(all.Quantile(1))
	return r
}

// OpenResult is the open-loop phase.
type OpenResult struct {
	TargetRate float64 `json:"targetRate"`
	// Arrivals is the schedule: periodic or poisson (-arrivals).
	Arrivals     string  `json:"arrivals"`
	Seconds      float64 `json:"seconds"`
	Scheduled    int     `json:"scheduled"`
	AchievedRate float64 `json:"achievedRate"`
	// Latencies are measured from each request's scheduled send time.
	P50Ms  float64 `json:"p50Ms"`
	P99Ms  float64 `json:"p99Ms"`
	P999Ms float64 `json:"p999Ms"`
	MaxMs  float64 `json:"maxMs"`
	// Late counts requests sent more than 1 ms after their scheduled time.
	Late int `json:"late"`
	// SendLag is how late requests left the load generator (sent − scheduled):
	// the generator's own timer and scheduling slack, included in the latencies.
	SendLagP50Ms float64 `json:"sendLagP50Ms"`
	SendLagP99Ms float64 `json:"sendLagP99Ms"`
	SendLagMaxMs float64 `json:"sendLagMaxMs"`
	// Service latencies are measured from the actual send (they omit send lag).
	ServiceP50Ms float64 `json:"serviceP50Ms"`
	ServiceP99Ms float64 `json:"serviceP99Ms"`
	Workers      int     `json:"workers"`
	CPU          *CPUUse `json:"cpu"`
	Counts
}

// openLoop schedules request i at start + i/rate for d and sends each from a
// pool of workers. Every latency runs from the scheduled time, so a slow
// answer cannot hide the requests queued behind it (no coordinated omission).
// onAnswer, if not nil, is called (from several goroutines) with every
// answer and the time it was read completely.
func (l *loader) openLoop(ctx context.Context, rate float64, d time.Duration, workers int,
	onAnswer func(a answer, done time.Time)) *OpenResult {
	total := int(rate * d.Seconds())
	jobs := make(chan int, total) // never blocks the schedule
	type sample struct{ lat, lag, svc time.Duration }
	samples := make([]sample, total)
	counts := make([]Counts, workers)
	var lastDone atomic.Int64 // ns since start of the last completion
	start := time.Now().Add(20 * time.Millisecond)
	offsets := arrivalOffsets(l.arrivals, rate, total)
	at := func(i int) time.Time { return start.Add(offsets[i]) }

	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range jobs {
				sched := at(i)
				sent := time.Now()
				var a answer
				if late := sent.Sub(sched); late > requestTimeout {
					// Every worker was busy for longer than a request may take:
					// count it as failed instead of sending it, so the phase ends.
					a = answer{err: fmt.Errorf("not sent: every sender was busy for %s", late.Round(time.Millisecond))}
				} else {
					a = l.submit(ctx)
				}
				done := time.Now()
				if onAnswer != nil {
					onAnswer(a, done)
				}
				samples[i] = sample{lat: done.Sub(sched), lag: sent.Sub(sched), svc: done.Sub(sent)}
				counts[w].add(a)
				for {
					old := lastDone.Load()
					n := int64(done.Sub(start))
					if n <= old || lastDone.CompareAndSwap(old, n) {
						break
					}
				}
			}
		})
	}
	// The schedule runs on its own OS thread: Go's timers wake up to 1 ms
	// late on Linux, a thread sleeping in the kernel about 0.1 ms.
	scheduled := 0
	func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for i := range total {
			if ctx.Err() != nil {
				return
			}
			for wait := time.Until(at(i)); wait > 0; wait = time.Until(at(i)) {
				preciseSleep(wait) // may end early on a signal
			}
			jobs <- i
			scheduled++
		}
	}()
	close(jobs)
	wg.Wait()

	r := &OpenResult{TargetRate: rate, Arrivals: l.arrivals, Seconds: d.Seconds(), Scheduled: scheduled, Workers: workers}
	for w := range workers {
		r.Counts.merge(counts[w])
	}
	lat, lag, svc := make(Histogram, scheduled), make(Histogram, scheduled), make(Histogram, scheduled)
	for i := range scheduled {
		lat[i], lag[i], svc[i] = samples[i].lat, samples[i].lag, samples[i].svc
		if samples[i].lag > time.Millisecond {
			r.Late++
		}
	}
	slices.Sort(lat)
	slices.Sort(lag)
	slices.Sort(svc)
	if n := time.Duration(lastDone.Load()); n > 0 {
		r.AchievedRate = float64(r.Accepted) / n.Seconds()
	}
	r.P50Ms, r.P99Ms, r.P999Ms, r.MaxMs = ms(lat.Quantile(0.5)), ms(lat.Quantile(0.99)), ms(lat.Quantile(0.999)), ms(lat.Quantile(1))
	r.SendLagP50Ms, r.SendLagP99Ms, r.SendLagMaxMs = ms(lag.Quantile(0.5)), ms(lag.Quantile(0.99)), ms(lag.Quantile(1))
	r.ServiceP50Ms, r.ServiceP99Ms = ms(svc.Quantile(0.5)), ms(svc.Quantile(0.99))
	return r
}

// closedSteps runs a closed-loop step at each of opts.Concurrency against
// the server of pid (formd or the naive peer), with the CPU each used.
func (l *loader) closedSteps(ctx context.Context, pid int, opts Options, label string) ([]*StepResult, error) {
	var steps []*StepResult
	for _, c := range opts.Concurrency {
		progress(fmt.Sprintf("%s: c=%d for %s", label, c, opts.Step))
		cpu := markCPU(pid)
		st := l.closedStep(ctx, c, opts.Step, opts.StepRequests)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		st.CPU = cpuSince(cpu, pid)
		steps = append(steps, st)
	}
	return steps, nil
}
