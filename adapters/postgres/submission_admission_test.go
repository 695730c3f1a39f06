package postgres_test

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
)

// quotaMonth is the month the quota tests charge.
var quotaMonth = account.MonthOf(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))

// charged is g.accepted charged to the form's account under quotas.
func (g groupEnv) charged(key string, quotas account.Quotas) application.AcceptedSubmission {
	s := g.accepted(1, key)
	s.Charge = application.QuotaCharge{AccountID: g.accountID, Month: quotaMonth, Quotas: quotas}
	return s
}

// used is the account's count in quotaMonth (0 without a row).
func (g groupEnv) used(t *testing.T) int {
	t.Helper()
	_, n, err := g.read.PlanUsage(g.ctx, g.accountID, quotaMonth)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (g groupEnv) setUsed(t *testing.T, n int) {
	t.Helper()
	if _, err := g.pool.Exec(g.ctx, `INSERT INTO submission_quota_usage (account_id, month, used) VALUES ($1, $2, $3)
		ON CONFLICT (account_id, month) DO UPDATE SET used = excluded.used`, g.accountID, quotaMonth.Start(), n); err != nil {
		t.Fatal(err)
	}
}

func TestGroupCommitPipelinedChargesTheQuotaOrFailsAsAWhole(t *testing.T) {
	t.Parallel()
	g := newGroupEnv(t)
	quotas := account.Quotas{Free: 3, Pro: 100, Lifetime: 100}
	batch := []application.AcceptedSubmission{g.charged("", quotas), g.charged("k", quotas), g.charged("k", quotas)}
	if _, errs, err := postgres.CommitPipelined(g.subs, g.ctx, batch); err != nil || errs[0] != nil || errs[1] != nil || errs[2] != nil {
		t.Fatalf("CommitPipelined: %v %v", err, errs)
	}
	if n := g.used(t); n != 2 {
		t.Fatalf("used %d after two submissions and a twin, want 2", n)
	}

	over := []application.AcceptedSubmission{g.charged("", quotas), g.charged("", quotas)}
	if _, _, err := postgres.CommitPipelined(g.subs, g.ctx, over); err == nil {
		t.Fatal("CommitPipelined of two submissions with room for one succeeded; the careful path must sort it out")
	}
	if g.committed(t, over[0]) || g.committed(t, over[1]) || g.used(t) != 2 {
		t.Fatalf("a failed pipeline committed or counted something: used %d", g.used(t))
	}
}

// A month's first group commit charges by inserting the account's row: a
// batch bigger than the whole quota fails the pipeline with nothing counted,
// as a batch bigger than the room left does.
func TestGroupCommitPipelinedRefusesAFreshMonthMoreThanItsQuota(t *testing.T) {
	t.Parallel()
	g := newGroupEnv(t)
	quotas := account.Quotas{Free: 1, Pro: 100, Lifetime: 100}
	over := []application.AcceptedSubmission{g.charged("", quotas), g.charged("", quotas)}
	if _, _, err := postgres.CommitPipelined(g.subs, g.ctx, over); err == nil {
		t.Fatal("CommitPipelined of two submissions in a fresh month with a quota of one succeeded")
	}
	if g.committed(t, over[0]) || g.committed(t, over[1]) || g.used(t) != 0 {
		t.Fatalf("a failed pipeline committed or counted something: used %d", g.used(t))
	}
	one := []application.AcceptedSubmission{g.charged("", quotas)}
	if _, errs, err := postgres.CommitPipelined(g.subs, g.ctx, one); err != nil || errs[0] != nil {
		t.Fatalf("CommitPipelined of one submission within the quota: %v %v", err, errs)
	}
	if !g.committed(t, one[0]) || g.used(t) != 1 {
		t.Fatalf("the submission within the quota: committed %v, used %d; want committed and 1", g.committed(t, one[0]), g.used(t))
	}
}

// A pipelined commit for an account on a plan with no quota fails, and the
// careful path then refuses it with a clear error rather than counting it.
func TestGroupCommitOfAPlanWithoutAQuotaIsRefused(t *testing.T) {
	t.Parallel()
	g := newGroupEnv(t)
	if _, err := g.pool.Exec(g.ctx, `UPDATE accounts SET plan = 'retired' WHERE id = $1`, g.accountID); err != nil {
		t.Fatal(err)
	}
	sub := g.charged("", account.Quotas{Free: 10, Pro: 10, Lifetime: 10})
	if _, _, err := postgres.CommitPipelined(g.subs, g.ctx, []application.AcceptedSubmission{sub}); err == nil {
		t.Fatal("CommitPipelined charged an account whose plan has no quota")
	}
	if _, err := g.subs.Accept(g.ctx, sub); err == nil || !strings.Contains(err.Error(), "no quota for the plan") {
		t.Fatalf("Accept on a plan without a quota: %v; want the careful path's 'no quota for the plan'", err)
	}
	if g.committed(t, sub) || g.used(t) != 0 {
		t.Fatalf("a submission on a plan without a quota was committed or counted: used %d", g.used(t))
	}
}

// Where an account has room for only some of a batch's submissions, the
// first ones commit and the others are refused with the quota, on the
// careful path and when the pipeline falls back to it.
func TestGroupCommitCarefulPathChargesTheQuotaPerSubmission(t *testing.T) {
	t.Parallel()
	for _, path := range []struct {
		name   string
		commit postgres.CommitPath
	}{{"careful", postgres.CommitCarefully}, {"fallback", postgres.Commit}} {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			g := newGroupEnv(t)
			quotas := account.Quotas{Free: 4, Pro: 100, Lifetime: 100}
			seeded := g.charged("used", quotas)
			g.storeKey(t, seeded) // counted: 1 of 4
			g.setUsed(t, 2)       // and one more, from another process say
			batch := []application.AcceptedSubmission{
				g.charged("", quotas),      // commits: 3 of 4
				g.charged("used", quotas),  // a replay of the seeded one: answered, not counted
				g.charged("late", quotas),  // commits: 4 of 4
				g.charged("over", quotas),  // refused, its key given back
				g.charged("", quotas),      // refused
				g.charged("over", quotas),  // a twin of a refused one: refused alike
				g.accepted(1, "uncharged"), // counts against nothing (no account)
			}
			priors, errs, err := path.commit(g.subs, g.ctx, batch)
			if err != nil {
				t.Fatalf("%s: %v", path.name, err)
			}
			for i, want := range []string{"", seeded.Accepted.RequestID, "", "quota", "quota", "quota", ""} {
				var got string
				var exhausted *application.QuotaExhaustedError
				switch {
				case errors.As(errs[i], &exhausted):
					got = "quota"
					u := exhausted.Usage
					if u.Plan != account.PlanFree || u.Quota != 4 || u.Used != 4 || u.Month != quotaMonth {
						t.Errorf("submission %d: usage %+v, want the free plan's 4 of 4 in %s", i, u, quotaMonth)
					}
				case errs[i] != nil:
					got = "error: " + errs[i].Error()
				case priors[i] != nil:
					got = priors[i].Response.RequestID
				}
				if got != want {
					t.Errorf("submission %d answered %q, want %q", i, got, want)
				}
			}
			for i, want := range []bool{true, false, true, false, false, false, true} {
				if got := g.committed(t, batch[i]); got != want {
					t.Errorf("submission %d committed = %v, want %v", i, got, want)
				}
			}
			if n := g.used(t); n != 4 {
				t.Errorf("used %d, want 4", n)
			}
			if stored, err := g.subs.IdempotentResponse(g.ctx, g.formID, "over"); err != nil || stored != nil {
				t.Errorf("the refused submission's key still answers: %+v, %v", stored, err)
			}
			if stored, err := g.subs.IdempotentResponse(g.ctx, g.formID, "late"); err != nil || stored == nil {
				t.Errorf("the committed submission's key does not answer: %+v, %v", stored, err)
			}
		})
	}
}

// A plan changed a moment ago applies to the next commit: the store reads
// the account's plan in the commit's transaction.
func TestGroupCommitChargesThePlanTheAccountIsOnNow(t *testing.T) {
	t.Parallel()
	g := newGroupEnv(t)
	quotas := account.Quotas{Free: 1, Pro: 3, Lifetime: 2}
	g.setUsed(t, 1)
	if _, errs, err := postgres.Commit(g.subs, g.ctx, []application.AcceptedSubmission{g.charged("", quotas)}); err != nil || errs[0] == nil {
		t.Fatalf("on the free plan with its one submission used: %v %v, want a refusal", err, errs)
	}
	g.run(t, func(tx application.Tx) error {
		a, err := tx.LoadAccount(g.ctx, g.accountID)
		if err != nil {
			return err
		}
		if err := a.SetPlan(account.PlanPro, time.Now()); err != nil {
			return err
		}
		return tx.SaveAccount(g.ctx, a)
	})
	batch := []application.AcceptedSubmission{g.charged("", quotas), g.charged("", quotas), g.charged("", quotas)}
	_, errs, err := postgres.Commit(g.subs, g.ctx, batch)
	var exhausted *application.QuotaExhaustedError
	if err != nil || errs[0] != nil || errs[1] != nil || !errors.As(errs[2], &exhausted) || exhausted.Usage.Plan != account.PlanPro || exhausted.Usage.Quota != 3 {
		t.Fatalf("on the pro plan (3), with 1 used: %v %v, want two commits and a refusal naming the pro plan", err, errs)
	}
	if plan, n, err := g.read.PlanUsage(g.ctx, g.accountID, quotaMonth); err != nil || plan != account.PlanPro || n != 3 {
		t.Fatalf("PlanUsage = %q, %d, %v", plan, n, err)
	}
}

// Two stores on one database (two formd processes) hammering one account's
// last 10 submissions commit exactly 10, whatever the batches look like.
func TestTwoStoresNeverOverrunAQuota(t *testing.T) {
	t.Parallel()
	g := newGroupEnv(t)
	events := postgres.NewEventStore()
	other, closeOther := postgres.NewSubmissionStore(g.pool, events, postgres.NewDeliveryStore(g.pool, events), slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(closeOther)
	quotas := account.Quotas{Free: 25, Pro: 100, Lifetime: 100}
	g.setUsed(t, 15)
	const n = 60
	subs := make([]application.AcceptedSubmission, n)
	errs := make([]error, n)
	for i := range subs {
		key := ""
		if i%3 == 0 {
			key = fmt.Sprint("key-", i)
		}
		subs[i] = g.charged(key, quotas)
	}
	var wg sync.WaitGroup
	for i := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			store := g.subs
			if i%2 == 1 {
				store = other
			}
			_, errs[i] = store.Accept(g.ctx, subs[i])
		}()
	}
	wg.Wait()
	accepted := 0
	for i, err := range errs {
		var exhausted *application.QuotaExhaustedError
		switch {
		case err == nil:
			accepted++
		case !errors.As(err, &exhausted):
			t.Fatalf("Accept %d: %v", i, err)
		}
		if g.committed(t, subs[i]) != (err == nil) {
			t.Fatalf("submission %d: committed and answered disagree (%v)", i, err)
		}
	}
	if accepted != 10 || g.used(t) != 25 {
		t.Fatalf("accepted %d with the count at %d; want exactly the 10 left, and 25", accepted, g.used(t))
	}
}

// The admission is planned once per connection, generic, and reads only
// the forms and accounts of its group commit, by key, whatever their number
// when its plan was made: the pipelined path's statement and the careful
// path's alike.
func TestTheAdmissionReadsOnlyTheFormsAndAccountsItAdmits(t *testing.T) {
	t.Parallel()
	for _, path := range []struct {
		name, statement string
		admit           func(g groupEnv, conn *pgx.Conn, version int32) error
	}{{"pipelined", postgres.AdmitAllQuery, func(g groupEnv, conn *pgx.Conn, version int32) error {
		b := &pgx.Batch{} // as the group commit sends it: one implicit transaction
		postgres.QueueAdmission(b, []string{g.formID}, []int32{version}, []string{g.accountID}, quotaMonth.Start(),
			account.Quotas{Free: 1000, Pro: 1000, Lifetime: 1000})
		return conn.SendBatch(g.ctx, b).Close()
	}}, {"careful", postgres.AdmissionQuery, func(g groupEnv, conn *pgx.Conn, version int32) error {
		verdicts, err := postgres.Admit(g.ctx, conn, []string{g.formID}, []int32{version}, []string{g.accountID}, quotaMonth.Start(),
			account.Quotas{Free: 1000, Pro: 1000, Lifetime: 1000})
		if err == nil && (len(verdicts) != 1 || verdicts[0] != "admitted") {
			err = fmt.Errorf("verdicts %v, want one admitted", verdicts)
		}
		return err
	}}} {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			g := newGroupEnv(t)
			conn, plans := explainedConn(t, g.pool)
			var version int32
			if err := conn.QueryRow(g.ctx, `SELECT version FROM forms WHERE id = $1`, g.formID).Scan(&version); err != nil {
				t.Fatal(err)
			}
			admit := func() {
				if err := path.admit(g, conn, version); err != nil {
					t.Fatal(err)
				}
			}
			admit() // planned on this database's one account and form
			if _, err := g.pool.Exec(g.ctx, `INSERT INTO accounts (id, email, created_at, plan)
				SELECT gen_random_uuid(), gen_random_uuid()::text || '@example.com', now(), 'free' FROM generate_series(1, 5000);
				ANALYZE accounts; ANALYZE forms; ANALYZE submission_quota_usage`); err != nil {
				t.Fatal(err)
			}
			admit()
			admit()
			if n := g.used(t); n != 3 {
				t.Fatalf("used %d after three admissions of one submission, want 3", n)
			}
			for _, table := range []string{"forms f", "accounts", "submission_quota_usage"} {
				got := plans(table)
				if len(got) < 3 {
					t.Fatalf("auto_explain reported %d plans reading %s, want one per admission (3)", len(got), table)
				}
				for i, plan := range got {
					if strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Hash Join") {
						t.Errorf("admission %d reads more than it admits:\n%s", i+1, plan)
					}
				}
			}
			if generic, custom := preparedPlans(t, conn, path.statement); generic != 3 || custom != 0 {
				t.Fatalf("the admission ran on %d generic and %d custom plans, want its generic plan each time (3)", generic, custom)
			}
			settingEndedWithItsTransaction(t, conn, "the admission", "enable_seqscan")
		})
	}
}

// Group commits charging two accounts, listed in opposite orders, never
// deadlock on each other's quota rows: the admission charges them in key
// order on every path.
func TestCommitsChargingAccountsInOppositeOrdersNeverDeadlock(t *testing.T) {
	t.Parallel()
	g := newGroupEnv(t)
	otherAccount, otherForm := g.seedForm(t)
	quotas := account.Quotas{Free: 1000, Pro: 1000, Lifetime: 1000}
	ofOther := func(s application.AcceptedSubmission) application.AcceptedSubmission {
		s.FormID, s.Accepted.FormID, s.Charge.AccountID = otherForm, otherForm, otherAccount
		s.Queued = []delivery.Queued{s.Queued[0]}
		s.Queued[0].FormID = otherForm
		return s
	}
	const n = 30
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch := []application.AcceptedSubmission{g.charged("", quotas), ofOther(g.charged("", quotas))}
			if i%2 == 1 {
				batch[0], batch[1] = batch[1], batch[0]
			}
			path := []string{"careful", "fallback"}[i/2%2]
			out, err := postgres.CommitOn(path, g.subs, g.ctx, batch)
			if err == nil {
				err = errors.Join(out[0].Err, out[1].Err)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("commit %d: %v", i, err)
		}
	}
	if n := g.used(t); n != 30 {
		t.Errorf("used %d of the first account, want 30", n)
	}
}

// A count another process commits while the admission waits for the quota
// row is the one it decides by: the statement's own reading of the row
// predates that commit, so the room it reports is too large, and the
// submissions that fit the latest count are admitted, no more and no fewer.
func TestTheCarefulPathAdmitsWhatFitsACountCommittedWhileItWaited(t *testing.T) {
	t.Parallel()
	g := newGroupEnv(t)
	quotas := account.Quotas{Free: 25, Pro: 100, Lifetime: 100}
	g.setUsed(t, 15)

	other, err := g.pool.Begin(g.ctx) // another process's commit, holding the row
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback(g.ctx) //nolint:errcheck // a no-op once committed
	if _, err := other.Exec(g.ctx, `UPDATE submission_quota_usage SET used = 21 WHERE account_id = $1 AND month = $2`,
		g.accountID, quotaMonth.Start()); err != nil {
		t.Fatal(err)
	}

	batch := make([]application.AcceptedSubmission, 10)
	for i := range batch {
		batch[i] = g.charged("", quotas)
	}
	type answer struct {
		errs []error
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		_, errs, err := postgres.CommitCarefully(g.subs, g.ctx, batch)
		done <- answer{errs, err}
	}()
	waitForLockWait(t, g)
	if err := other.Commit(g.ctx); err != nil {
		t.Fatal(err)
	}
	a := <-done
	if a.err != nil {
		t.Fatal(a.err)
	}
	admitted := 0
	for i, err := range a.errs {
		var exhausted *application.QuotaExhaustedError
		switch {
		case err == nil:
			admitted++
		case errors.As(err, &exhausted):
			if u := exhausted.Usage; u.Used != 25 || u.Quota != 25 {
				t.Errorf("submission %d: usage %+v, want 25 of 25", i, u)
			}
		default:
			t.Errorf("submission %d: %v", i, err)
		}
	}
	if admitted != 4 {
		t.Errorf("admitted %d, want the 4 that fit 21 of 25", admitted)
	}
	if n := g.used(t); n != 25 {
		t.Errorf("used %d, want 25", n)
	}
}

// waitForLockWait waits until a statement on g's database waits for a lock.
func waitForLockWait(t *testing.T, g groupEnv) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		if err := g.pool.QueryRow(g.ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no statement came to wait for the quota row")
}
