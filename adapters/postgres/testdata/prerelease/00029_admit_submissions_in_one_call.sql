-- +goose Up
-- A pipelined group commit checks its forms' versions and charges its
-- accounts' quotas in one call instead of two.
--
-- They were formd_expect_form_versions and the strict formd_charge_quota,
-- two calls per group commit and a large share of an accepted submission's
-- statement time (see docs/performance.md). The charge's loop locked each
-- account's row (SELECT ... FOR UPDATE, a WAL record of its own), then
-- updated it: here one upsert per group commit charges every account (the
-- caller sums the submissions per account and month), and an account
-- without room for all of its submissions is simply not charged, which the
-- count of charged rows shows. One call does the work of two in less server
-- time.
--
-- Strict as the pipeline wants it: a form that changed raises FD001, and a
-- quota without room (or a plan without a quota) raises FD002, which fails
-- the pipeline as a whole; the careful path then answers each submission
-- precisely with formd_charge_quota, which stays, as does
-- formd_expect_form_versions, for the careful path and for an older formd
-- running beside this one. Like the charge (migration 00026) it asks for its
-- generic plan and reads every row by key.
-- +goose StatementBegin
CREATE FUNCTION formd_admit_submissions(p_forms uuid[], p_versions int[], p_accounts uuid[], p_months date[], p_wants int[],
                                        p_plans text[], p_quotas int[])
RETURNS void
LANGUAGE plpgsql
SET enable_seqscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    charged int;
BEGIN
    -- The careful path's check, raising FD001; it runs under this
    -- function's settings, so its plan is generic too.
    PERFORM formd_expect_form_versions(p_forms, p_versions);
    -- One row per (account, month), in that order: every commit locks
    -- quota rows in one order, so two commits never deadlock.
    INSERT INTO submission_quota_usage AS u (account_id, month, used)
    SELECT c.account_id, c.month, c.want FROM unnest(p_accounts, p_months, p_wants) AS c(account_id, month, want)
    WHERE c.want <= p_quotas[array_position(p_plans, (SELECT a.plan FROM accounts a WHERE a.id = c.account_id))]
    ON CONFLICT (account_id, month) DO UPDATE SET used = u.used + excluded.used
    WHERE u.used::bigint + excluded.used
          <= p_quotas[array_position(p_plans, (SELECT a.plan FROM accounts a WHERE a.id = u.account_id))];
    GET DIAGNOSTICS charged = ROW_COUNT;
    IF charged < coalesce(cardinality(p_accounts), 0) THEN
        RAISE EXCEPTION 'a monthly submission quota is used up' USING ERRCODE = 'FD002';
    END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION formd_admit_submissions(uuid[], int[], uuid[], date[], int[], text[], int[]);
