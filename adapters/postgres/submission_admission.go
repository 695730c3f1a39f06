package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
)

// Admission decides, in the group commit's own transaction, which
// submissions may commit: each must have been judged on its form's current
// version, and its account's monthly quota must have room for it. One
// statement (admissionVerdicts) holds the rule for both commit paths, so a
// submission is counted if and only if it is committed, no restart resets a
// count and no second process overruns one. The quota row of an (account,
// month) stays locked from the charge to the commit, which is why the
// pipelined path admits last.

// admission is the statement's input: one row per live submission, in
// batch order.
type admission struct {
	idx      []int
	forms    []string
	versions []int32
	accounts []*string // nil: the submission counts against no quota
	months   []time.Time
	quotas   account.Quotas
	plans    []string
	limits   []int32
	anyQuota bool
}

func admissionOf(batch []*pendingSubmission, live []bool) admission {
	var a admission
	for i, p := range batch {
		if !live[i] {
			continue
		}
		a.idx = append(a.idx, i)
		a.forms, a.versions = append(a.forms, p.sub.FormID), append(a.versions, int32(p.sub.FormVersion))
		c := p.sub.Charge
		var acc *string
		if c.AccountID != "" {
			acc = &c.AccountID
			if !a.anyQuota {
				a.quotas, a.anyQuota = c.Quotas, true // one process's configuration: the same for the whole batch
			}
		}
		a.accounts, a.months = append(a.accounts, acc), append(a.months, c.Month.Start())
	}
	a.plans, a.limits = planQuotas(a.quotas)
	return a
}

func (a admission) args() []any {
	return []any{a.forms, a.versions, a.accounts, a.months, a.plans, a.limits}
}

// planQuotas are the quota of every plan, as admissionQuery takes them.
func planQuotas(q account.Quotas) (plans []string, limits []int32) {
	plans = make([]string, len(account.Plans))
	limits = make([]int32, len(account.Plans))
	for i, p := range account.Plans {
		plans[i], limits[i] = string(p), int32(min(q.Of(p), 1<<31-1))
	}
	return plans, limits
}

// admissionVerdicts gives every submission its verdict: 'stale' when its
// form is no longer at the version it was judged on, 'quota' when its
// account lacks room this month for all of the batch's current submissions,
// else 'admitted', and charges the quotas of the admitted ones.
//
// $1, $2: the submissions' forms and the versions they were judged on; $3,
// $4: the account and month each counts against (NULL: none); $5, $6:
// every plan's quota. An (account, month) is charged all of its current
// submissions or none: the upsert's WHERE sees the row's latest count once
// it holds the row's lock, so two processes never overrun a quota, and
// rows are charged in (account, month) order so two commits never
// deadlock. The plan is read in the statement, so a plan changed a moment
// ago applies at once. The verdicts CTE holds, per submission, its position
// in the input (from 1), its verdict, and for one that counts against a
// quota the plan, its quota and the count after the charge (before it, for
// a refused one). A data-modifying WITH must stay at the top level, so each
// path appends its own final SELECT.
const admissionVerdicts = `
	WITH judged AS (
		SELECT w.n, w.account_id, w.month, f.version IS NOT DISTINCT FROM w.version AS current
		FROM unnest($1::uuid[], $2::int[], $3::uuid[], $4::date[]) WITH ORDINALITY AS w(form_id, version, account_id, month, n)
		LEFT JOIN forms f ON f.id = w.form_id
	), demand AS (
		SELECT j.account_id, j.month, count(*)::int AS want, a.plan,
		       ($6::int[])[array_position($5::text[], a.plan)] AS quota
		FROM judged j, LATERAL (SELECT plan FROM accounts WHERE id = j.account_id) a
		WHERE j.current AND j.account_id IS NOT NULL
		GROUP BY j.account_id, j.month, a.plan
	), charged AS (
		INSERT INTO submission_quota_usage AS u (account_id, month, used)
		SELECT d.account_id, d.month, d.want FROM demand d WHERE d.want <= d.quota
		ORDER BY d.account_id, d.month
		ON CONFLICT (account_id, month) DO UPDATE SET used = u.used + excluded.used
		WHERE u.used::bigint + excluded.used
		      <= ($6::int[])[array_position($5::text[], (SELECT a.plan FROM accounts a WHERE a.id = u.account_id))]
		RETURNING u.account_id, u.month, u.used
	), verdicts AS (
		SELECT j.n::int AS n,
		       CASE WHEN NOT j.current THEN 'stale'
		            WHEN j.account_id IS NULL OR c.account_id IS NOT NULL THEN 'admitted'
		            ELSE 'quota' END AS verdict,
		       d.plan, d.quota,
		       coalesce(c.used, (SELECT s.used FROM submission_quota_usage s WHERE s.account_id = j.account_id AND s.month = j.month), 0) AS used
		FROM judged j
		LEFT JOIN demand d ON d.account_id = j.account_id AND d.month = j.month
		LEFT JOIN charged c ON c.account_id = j.account_id AND c.month = j.month
	)`

// admissionQuery is the careful path's admission: every verdict, in input
// order.
const admissionQuery = admissionVerdicts + `
	SELECT n, verdict, plan, quota, used FROM verdicts ORDER BY n`

// admitAllQuery is the pipelined path's admission, which commits the whole
// batch or nothing: a single verdict other than 'admitted' raises (FD001),
// undoing the pipeline, and the careful path then answers each submission.
const admitAllQuery = admissionVerdicts + `
	SELECT formd_refuse('FD001', 'a submission of the group commit was not admitted')
	FROM verdicts WHERE verdict <> 'admitted' LIMIT 1`

// admissionSettings make the admission's plan generic, made once per
// connection, and keep it reading forms and accounts by key even if it was
// made while those tables were nearly empty. A plan is made under the
// settings of its first call and kept; they last to the end of the
// transaction.
const admissionSettings = `SELECT set_config('enable_seqscan', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true)`

// verdict is one row of admissionQuery.
type verdict struct {
	n           int
	verdict     string
	plan        *string
	quota, used *int
}

// queueAdmitAll adds the pipelined path's admission, with its settings, to
// b: last, so the quota rows stay locked only from here to the commit.
func (a admission) queueAdmitAll(b *pgx.Batch) {
	b.Queue(admissionSettings)
	b.Queue(admitAllQuery, a.args()...)
}

// verdicts runs the admission in tx and returns its verdicts in input order.
func (a admission) verdicts(ctx context.Context, tx pgx.Tx) ([]verdict, error) {
	if _, err := tx.Exec(ctx, admissionSettings); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, admissionQuery, a.args()...)
	if err != nil {
		return nil, err
	}
	out := make([]verdict, 0, len(a.idx))
	var v verdict
	_, err = pgx.ForEachRow(rows, []any{&v.n, &v.verdict, &v.plan, &v.quota, &v.used}, func() error {
		out = append(out, v)
		return nil
	})
	return out, err
}

// chargeKey is an (account, month) pair; the month as 2006-01, which
// compares safely where time.Time values may not.
type chargeKey struct{ account, month string }

// admit runs the admission for the live submissions in tx. A stale one is
// answered with domain.ErrConcurrency, for the application to judge it
// again. Where an account has room for only some of its submissions, the
// statement refuses them all; the quota rows are then locked and read at
// their latest count (the statement's own reading may predate another
// process's commit), the first ones in the batch that fit are admitted by a
// second run of it, and the others answered with the quota's refusal.
// Refused submissions leave the commit.
func (s *SubmissionStore) admit(ctx context.Context, tx pgx.Tx, batch []*pendingSubmission, live []bool, results []acceptResult) error {
	usage := map[chargeKey]account.Usage{}
	overQuota := map[int]bool{}
	candidates := live
	for round := 0; round < 2; round++ {
		a := admissionOf(batch, candidates)
		if len(a.idx) == 0 {
			break
		}
		verdicts, err := a.verdicts(ctx, tx)
		if err != nil {
			return err
		}
		var short []int // submissions refused for their quota, in batch order
		for _, v := range verdicts {
			i := a.idx[v.n-1]
			c := batch[i].sub.Charge
			key := chargeKey{c.AccountID, c.Month.String()}
			if v.plan != nil && v.quota != nil {
				usage[key] = account.Usage{Plan: account.Plan(*v.plan), Quota: *v.quota, Used: *v.used, Month: c.Month}
			}
			switch v.verdict {
			case "admitted":
				continue
			case "stale":
				live[i], results[i] = false, acceptResult{err: domain.ErrConcurrency}
				continue
			}
			if v.quota == nil {
				return fmt.Errorf("no quota for the plan %s of account %s", planName(v.plan), c.AccountID)
			}
			live[i], overQuota[i] = false, true
			short = append(short, i)
		}
		if round > 0 || len(short) == 0 {
			break
		}
		used, err := lockQuotaRows(ctx, tx, batch, short)
		if err != nil {
			return err
		}
		retry := make([]bool, len(batch))
		for _, i := range short {
			c := batch[i].sub.Charge
			key := chargeKey{c.AccountID, c.Month.String()}
			u := usage[key]
			u.Used = used[key]
			usage[key] = u
			if u.Used < u.Quota {
				used[key]++
				retry[i], live[i], overQuota[i] = true, true, false
			}
		}
		candidates = retry
	}
	for i, refused := range overQuota {
		if !refused {
			continue
		}
		c := batch[i].sub.Charge
		results[i] = acceptResult{err: &application.QuotaExhaustedError{Usage: usage[chargeKey{c.AccountID, c.Month.String()}]}}
	}
	return nil
}

// lockQuotaRows locks the quota rows of the given submissions' (account,
// month) pairs until tx ends, creating empty ones, and reads their latest
// counts: with the rows held, a second run of the admission sees exactly
// the room this reading reports.
func lockQuotaRows(ctx context.Context, tx pgx.Tx, batch []*pendingSubmission, subs []int) (map[chargeKey]int, error) {
	var accounts []string
	var months []time.Time
	seen := map[chargeKey]bool{}
	for _, i := range subs {
		c := batch[i].sub.Charge
		key := chargeKey{c.AccountID, c.Month.String()}
		if !seen[key] {
			seen[key] = true
			accounts, months = append(accounts, c.AccountID), append(months, c.Month.Start())
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO submission_quota_usage (account_id, month, used)
		SELECT account_id, month, 0 FROM unnest($1::uuid[], $2::date[]) AS w(account_id, month)
		ORDER BY account_id, month
		ON CONFLICT (account_id, month) DO NOTHING`, accounts, months); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, `SELECT u.account_id::text, u.month, u.used FROM submission_quota_usage u
		WHERE (u.account_id, u.month) IN (SELECT * FROM unnest($1::uuid[], $2::date[]))
		ORDER BY u.account_id, u.month
		FOR UPDATE`, accounts, months)
	if err != nil {
		return nil, err
	}
	used := map[chargeKey]int{}
	var acc string
	var month time.Time
	var n int
	_, err = pgx.ForEachRow(rows, []any{&acc, &month, &n}, func() error {
		used[chargeKey{acc, account.MonthOf(month).String()}] = n
		return nil
	})
	return used, err
}

// planName is the plan the admission read, or "(none)" for an account it
// did not find.
func planName(s *string) string {
	if s == nil {
		return "(none)"
	}
	return *s
}
