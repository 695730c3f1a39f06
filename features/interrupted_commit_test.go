package features_test

import (
	"context"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A commit whose connection breaks is answered by what the database holds.
// The case where the commit landed before the break needs a connection cut
// between PostgreSQL's answer and formd, which the adapter's tests make
// (adapters/postgres/submission_ambiguous_test.go); here the server process
// is terminated while it commits, so the commit does not land.
var _ = Describe("A submission whose commit is interrupted", func() {
	It("is refused, stores nothing, and is stored once when retried with the same Idempotency-Key", func() {
		f := shared
		db := f.OpenDB()
		lf := f.LiveForm(nil)
		name := "sleep_at_commit_" + randomHex(6)

		By("having every commit of the form's submissions wait, and terminating it while it does")
		db.Exec(`CREATE FUNCTION ` + name + `() RETURNS trigger LANGUAGE plpgsql AS
			$$ BEGIN PERFORM pg_sleep(60); RETURN NULL; END $$`)
		DeferCleanup(db.Exec, `DROP FUNCTION IF EXISTS `+name+`() CASCADE`)
		db.Exec(`CREATE CONSTRAINT TRIGGER ` + name + ` AFTER INSERT ON submission_payloads DEFERRABLE INITIALLY DEFERRED
			FOR EACH ROW WHEN (NEW.form_id = '` + lf.ID + `') EXECUTE FUNCTION ` + name + `()`)
		stop, terminated := make(chan struct{}), make(chan int)
		go func() {
			n := 0
			defer func() { terminated <- n }()
			for {
				var killed int
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				_ = db.pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
					WHERE datname = current_database() AND wait_event = 'PgSleep'`).Scan(&killed)
				cancel()
				n += killed
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}()

		key := "interrupted-" + randomHex(8)
		body := map[string]any{"access_key": lf.AccessKey, "name": "Ada", "message": "Once, please"}
		first := f.Post("", "/submit", body, withIdempotencyKey(key))
		close(stop)
		Expect(<-terminated).To(BeNumerically(">", 0), "a commit was terminated")
		Expect(first.Status).To(BeNumerically(">=", 500), "%s", first)
		Expect(first.JSON).To(HaveKeyWithValue("success", false), "%s", first)
		Expect(db.AcceptedSubmissions(lf.ID)).To(BeEmpty())

		By("retrying with the same key once the commit can land")
		db.Exec(`DROP TRIGGER ` + name + ` ON submission_payloads`)
		retry := f.Post("", "/submit", body, withIdempotencyKey(key))
		Expect(retry.Status).To(Equal(http.StatusOK), "%s", retry)
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(1))
		Expect(db.QueuedDeliveries(lf.ID)).To(HaveLen(1))
		f.Mail.WaitForMail(lf.Recipient)
	})
})
