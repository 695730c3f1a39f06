package postgres

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
)

// Monthly quotas are charged in the group commit's own transaction
// (formd_charge_quota, migration 00015): a submission is counted if and only
// if it is committed, so no restart resets a count and no second process
// overruns one. The row of an (account, month) is locked from the charge to
// the commit, which is why the pipelined path charges last.

// quotaCharges are the charges of the live submissions that count against a
// quota, one per submission, in batch order.
type quotaCharges struct {
	idx      []int
	accounts []string
	months   []time.Time
	wants    []int32
	quotas   account.Quotas
}

func quotaChargesOf(batch []*pendingSubmission, live []bool) quotaCharges {
	var q quotaCharges
	for i, p := range batch {
		c := p.sub.Charge
		if !live[i] || c.AccountID == "" {
			continue
		}
		if len(q.idx) == 0 {
			q.quotas = c.Quotas // one process's configuration: the same for the whole batch
		}
		q.idx = append(q.idx, i)
		q.accounts, q.months, q.wants = append(q.accounts, c.AccountID), append(q.months, c.Month.Start()), append(q.wants, 1)
	}
	return q
}

// planQuotas are the quota of every plan, as formd_charge_quota and
// admitQuery take them.
func (q quotaCharges) planQuotas() (plans []string, limits []int32) {
	plans = make([]string, len(account.Plans))
	limits = make([]int32, len(account.Plans))
	for i, p := range account.Plans {
		plans[i], limits[i] = string(p), int32(min(q.quotas.Of(p), 1<<31-1))
	}
	return plans, limits
}

// chargeQuery calls formd_charge_quota with q's charges, charging what room
// there is (the careful path).
func (q quotaCharges) chargeQuery() (string, []any) {
	plans, limits := q.planQuotas()
	return `SELECT charged_account::text, charged_month, granted, used_after, plan_name, plan_quota
		FROM formd_charge_quota($1::uuid[], $2::date[], $3::int[], $4::text[], $5::int[], false)`,
		[]any{q.accounts, q.months, q.wants, plans, limits}
}

// queueAdmission adds to a pipelined group commit the check that its forms
// are at the versions the submissions were judged on, and the charge of
// every quota, in one statement (admitQuery): a changed form or a quota
// without room for all of an account's submissions raises, and the careful
// path sorts the batch out.
//
// The statement before it gives the rest of the commit's transaction the
// settings formd_admit_submissions (migration 00029) carried as a function:
// its plan is made once per connection, generic, and reads forms and
// accounts by key even if it was made while those tables were nearly
// empty. A plan is made under the settings of its first call and kept, so
// only the admission, the commit's last statement, needs them.
func (q quotaCharges) queueAdmission(b *pgx.Batch, formIDs []string, formVersions []int32) {
	plans, limits := q.planQuotas()
	accounts, months, wants := q.perAccountMonth()
	b.Queue(admissionSettings)
	b.Queue(admitQuery, formIDs, formVersions, accounts, months, wants, plans, limits)
}

// admissionSettings are the admission's planner settings, for the rest of
// the transaction.
const admissionSettings = `SELECT set_config('enable_seqscan', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true)`

// admitQuery checks the form versions and charges the quotas of a pipelined
// group commit. It is a plain statement rather than a call of
// formd_admit_submissions, whose plpgsql and settings cost more than its
// work (migration 00030; see docs/performance.md).
//
// $1, $2: the forms and the versions the submissions were judged on; $3-$5:
// the charges summed per account and month, in that order (perAccountMonth:
// every commit locks quota rows in one order, so two commits never
// deadlock); $6, $7: every plan's quota. An account without room for all of
// its submissions is left uncharged by the upsert's WHERE, which the count
// of charged rows shows. Refusals raise through formd_refuse with the codes
// of the functions it replaced: FD001 for a changed form, FD002 for a quota.
const admitQuery = `
	WITH stale AS (
		SELECT count(*) AS forms
		FROM unnest($1::uuid[], $2::int[]) AS e(id, version)
		LEFT JOIN forms f ON f.id = e.id
		WHERE f.version IS DISTINCT FROM e.version
	), charged AS (
		INSERT INTO submission_quota_usage AS u (account_id, month, used)
		SELECT c.account_id, c.month, c.want FROM unnest($3::uuid[], $4::date[], $5::int[]) AS c(account_id, month, want)
		WHERE c.want <= ($7::int[])[array_position($6::text[], (SELECT a.plan FROM accounts a WHERE a.id = c.account_id))]
		ON CONFLICT (account_id, month) DO UPDATE SET used = u.used + excluded.used
		WHERE u.used::bigint + excluded.used
		      <= ($7::int[])[array_position($6::text[], (SELECT a.plan FROM accounts a WHERE a.id = u.account_id))]
		RETURNING 1
	)
	SELECT CASE
		WHEN (SELECT forms FROM stale) > 0 THEN formd_refuse('FD001', 'a form changed since it was read')
		WHEN (SELECT count(*) FROM charged) < coalesce(cardinality($3::uuid[]), 0)
			THEN formd_refuse('FD002', 'a monthly submission quota is used up')
	END`

// perAccountMonth sums q's charges per account and month, ordered by both:
// the order in which admitQuery locks their rows.
func (q quotaCharges) perAccountMonth() (accounts []string, months []time.Time, wants []int32) {
	type group struct {
		account string
		month   time.Time
		want    int32
	}
	var groups []group
	for n := range q.accounts {
		i := slices.IndexFunc(groups, func(g group) bool { return g.account == q.accounts[n] && g.month.Equal(q.months[n]) })
		if i < 0 {
			groups = append(groups, group{account: q.accounts[n], month: q.months[n]})
			i = len(groups) - 1
		}
		groups[i].want += q.wants[n]
	}
	slices.SortFunc(groups, func(a, b group) int {
		return cmp.Or(strings.Compare(a.account, b.account), a.month.Compare(b.month))
	})
	for _, g := range groups {
		accounts, months, wants = append(accounts, g.account), append(months, g.month), append(wants, g.want)
	}
	return accounts, months, wants
}

// chargeKey is an (account, month) pair; the month as 2006-01, which
// compares safely where time.Time values may not.
type chargeKey struct{ account, month string }

// chargeQuotas charges the live submissions' quotas in tx: where an account
// has room for only some of its submissions, the first ones in the batch
// are kept and the others take no part in the commit: they are answered
// with the quota's refusal, and the Idempotency-Keys they claimed are given
// back, so a retry once there is room can commit.
func (s *SubmissionStore) chargeQuotas(ctx context.Context, tx pgx.Tx, batch []*pendingSubmission, live []bool, results []acceptResult) error {
	q := quotaChargesOf(batch, live)
	if len(q.idx) == 0 {
		return nil
	}
	sql, args := q.chargeQuery()
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	type charged struct {
		granted int
		usage   account.Usage
	}
	got := map[chargeKey]*charged{}
	var (
		acc         string
		month       time.Time
		granted     int
		used, limit int
		plan        string
	)
	if _, err := pgx.ForEachRow(rows, []any{&acc, &month, &granted, &used, &plan, &limit}, func() error {
		m := account.MonthOf(month)
		got[chargeKey{acc, m.String()}] = &charged{granted: granted,
			usage: account.Usage{Plan: account.Plan(plan), Quota: limit, Used: used, Month: m}}
		return nil
	}); err != nil {
		return err
	}
	var forms, keys []string
	for n, i := range q.idx {
		c := got[chargeKey{q.accounts[n], account.MonthOf(q.months[n]).String()}]
		if c == nil {
			return errors.New("formd_charge_quota answered no row for an account it was asked to charge")
		}
		if c.granted > 0 {
			c.granted--
			continue
		}
		live[i] = false
		results[i] = acceptResult{err: &application.QuotaExhaustedError{Usage: c.usage}}
		if k := batch[i].sub.IdempotencyKey; k != "" {
			forms, keys = append(forms, batch[i].sub.FormID), append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	_, err = tx.Exec(ctx, `DELETE FROM idempotency_keys WHERE (form_id, key) IN
		(SELECT * FROM unnest($1::uuid[], $2::text[]))`, forms, keys)
	return err
}

// twinOfRefused answers a twin (a submission with the Idempotency-Key of an
// earlier one in the batch) whose original the quota or an unavailable
// upload refused: it is refused alike, since no response was stored under
// the key.
func twinOfRefused(batch []*pendingSubmission, results []acceptResult, twin int) (acceptResult, bool) {
	for j := range twin {
		var exhausted *application.QuotaExhaustedError
		var unavailable *application.UploadUnavailableError
		if batch[j].sub.FormID == batch[twin].sub.FormID && batch[j].sub.IdempotencyKey == batch[twin].sub.IdempotencyKey &&
			(errors.As(results[j].err, &exhausted) || errors.As(results[j].err, &unavailable)) {
			return results[j], true
		}
	}
	return acceptResult{}, false
}
