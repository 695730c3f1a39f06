package features_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// outageCycles is how many times the outage spec crashes PostgreSQL: a
// couple in `make test`, FORMD_OUTAGE_CYCLES (5 in `make chaos`) when set.
func outageCycles() int {
	if n, err := strconv.Atoi(os.Getenv("FORMD_OUTAGE_CYCLES")); err == nil && n > 0 {
		return n
	}
	return 2
}

// outageDowntime is how long the server stays down at each crash.
const outageDowntime = 2 * time.Second

// recoveryBound is how soon after the server's return formd must answer
// GET /readyz with 200 and accept submissions again.
const recoveryBound = 5 * time.Second

var _ = Describe("PostgreSQL outages", func() {
	It("are ridden out by the same formd process: every 200 delivered once, no 200 while down, Retry-After on outage answers", func() {
		pg := StartPrivatePG()
		f := StartFormd("FORMD_QUOTA_FREE=2000000000", "FORMD_DATABASE_URL="+pg.URL("formd"))
		// The harness made formd a database on the suite's server too; this
		// formd uses the private cluster's (it creates it at start).
		f.DatabaseURL = pg.URL("formd")
		pid := f.Session.Command.Process.Pid
		lf := f.LiveForm(nil)

		load := startOutageLoad(f, lf.AccessKey)
		cycles := outageCycles()
		var windows []outageWindow
		var readyzWhileDown []int
		var readyzBack, acceptedBack []time.Duration
		for cycle := range cycles {
			By(fmt.Sprintf("cycle %d of %d: posting from 4 clients, then crashing PostgreSQL for %s", cycle+1, cycles, outageDowntime))
			time.Sleep(time.Duration(500+rand.IntN(500)) * time.Millisecond)
			pg.Crash()
			w := outageWindow{down: time.Now()}
			time.Sleep(outageDowntime / 2)
			readyzWhileDown = append(readyzWhileDown, readyzStatus(f))
			time.Sleep(time.Until(w.down.Add(outageDowntime)))
			w.up = time.Now()
			pg.Start()
			w.back = time.Now()
			windows = append(windows, w)

			readyzBack = append(readyzBack, untilWithin(recoveryBound, func() bool { return readyzStatus(f) == http.StatusOK }, w.back))
			untilWithin(recoveryBound, func() bool {
				_, ok := load.acceptedSince(w.up)
				return ok
			}, w.back)
			if at, ok := load.acceptedSince(w.up); ok {
				// pg_ctl polls for readiness: formd may be served before it returns.
				acceptedBack = append(acceptedBack, max(at.Sub(w.back), 0))
			} else {
				acceptedBack = append(acceptedBack, time.Since(w.back))
			}
			Expect(f.Session.ExitCode()).To(Equal(-1), "formd still runs after outage %d", cycle+1)
		}
		time.Sleep(500 * time.Millisecond) // some submissions after the last outage too
		posts := load.Stop()

		By("waiting for the mail of every 200, and for every delivery to settle")
		db := f.OpenDB()
		accepted := map[string]bool{}
		for _, p := range posts {
			if p.status == http.StatusOK {
				accepted[p.deliveryID+"@formd"] = true
			}
		}
		allReceived := func() bool {
			received := messageIDs(f.Mail.To(lf.Recipient))
			for id := range accepted {
				if received[id] == 0 {
					return false
				}
			}
			return true
		}
		untilWithin(60*time.Second, allReceived, time.Now())
		// Settled well within a claim's lease: deliveries claimed before an
		// outage resume when it ends, without waiting for their lease.
		settled := func() bool { return len(unsettledDeliveries(db)) == 0 }
		untilWithin(20*time.Second, settled, time.Now())
		unsettled := unsettledDeliveries(db)
		receivedBefore := messageIDs(f.Mail.To(lf.Recipient))
		if len(unsettled) > 0 {
			By(fmt.Sprintf("ending the leases of the %d deliveries still claimed, as time would", len(unsettled)))
			db.Exec(`UPDATE deliveries SET claimed_until = now() WHERE status IN ('queued', 'retrying') AND claimed_until > now()`)
			untilWithin(20*time.Second, settled, time.Now())
		}
		time.Sleep(time.Second) // a second send, if any, arrives too

		fig := figure(posts, windows, f.Mail.To(lf.Recipient))
		fig.unsettled = len(unsettled)
		for _, id := range unsettled {
			if receivedBefore[id+"@formd"] > 0 {
				fig.unsettledSent++
			}
		}
		report := fmt.Sprintf("%d outages of %s: %s\nGET /readyz while down: %v; 200 again after %v; a submission accepted again after %v",
			cycles, outageDowntime, fig, readyzWhileDown, readyzBack, acceptedBack)
		AddReportEntry("PostgreSQL outages", report)
		fmt.Fprintln(GinkgoWriter, report)

		// Every assertion is checked and every failure reported, so that one
		// run tells all that falls short.
		failures := InterceptGomegaFailures(func() {
			By("the same formd process serving throughout, and recovering by itself")
			Expect(f.Session.ExitCode()).To(Equal(-1), "formd still runs")
			Expect(f.Session.Command.Process.Pid).To(Equal(pid))
			Expect(fig.accepted).To(BeNumerically(">", 0), "submissions answered 200")
			for i := range cycles {
				Expect(readyzWhileDown[i]).To(Equal(http.StatusServiceUnavailable), "GET /readyz during outage %d", i+1)
				Expect(readyzBack[i]).To(BeNumerically("<", recoveryBound), "GET /readyz 200 again after outage %d", i+1)
				Expect(acceptedBack[i]).To(BeNumerically("<", recoveryBound), "a submission accepted again after outage %d", i+1)
			}

			By("no 200 while the server was down, and every 200 delivered")
			Expect(fig.okWhileDown).To(BeEmpty(), "answered 200 while PostgreSQL was down")
			Expect(fig.undelivered).To(BeEmpty(), "submissions answered 200 whose mail never arrived")
			Expect(fig.unmarked).To(BeEmpty(), "notifications without their submission's message")

			By("no delivery left waiting for its lease, and no mail sent twice")
			Expect(fig.unsettled).To(BeZero(), "deliveries still queued or claimed (%d of them already sent)", fig.unsettledSent)
			Expect(len(fig.sentTwice)).To(BeZero(), "Message-IDs received more than once")

			By("every outage answer telling the client to retry")
			Expect(fig.outageAnswers).To(BeNumerically(">", 0), "posts answered while PostgreSQL was down")
			Expect(fig.outageWithoutRetryAfter).To(BeZero(), "outage answers without Retry-After")
			Expect(fig.committedWithoutRetryAfter).To(BeZero(),
				"submissions that committed but were answered neither 200 nor with Retry-After: %v", fig.committedButRefused)
		})
		Expect(failures).To(BeEmpty(), "%s", report)
	})
})

// readyzStatus is formd's answer to GET /readyz (0 when none came).
func readyzStatus(f *Formd) int {
	resp, err := f.client.Get(f.URL + "/readyz")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	return resp.StatusCode
}

// untilWithin polls cond until it holds or limit has passed, and returns how
// long after since it held (limit or more when it never did).
func untilWithin(limit time.Duration, cond func() bool, since time.Time) time.Duration {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return max(time.Since(since), limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(since)
}

// unsettledDeliveries are the ids of the deliveries neither succeeded nor failed.
func unsettledDeliveries(db *DB) []string {
	GinkgoHelper()
	ctx, cancel := dbContext()
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT id::text FROM deliveries WHERE status NOT IN ('succeeded', 'failed')`)
	Expect(err).NotTo(HaveOccurred())
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	Expect(err).NotTo(HaveOccurred())
	return ids
}
