-- +goose Up
-- A pipelined group commit checks its forms' versions and charges its
-- accounts' quotas in one call instead of two.
--
-- They were formd_expect_form_versions and the strict formd_charge_quota,
-- 60 and 180 µs a call in the bench's open loop at 1,000/s (pg_stat_statements),
-- with batches of about 1.6 submissions: 150 µs of statement time per
-- accepted submission, nearly a third of it. The charge's loop locked each
-- account's row (SELECT ... FOR UPDATE, a WAL record of its own), then
-- updated it: here one upsert per group commit charges every account, and
-- an account without room for all of its submissions is simply not
-- charged, which the count of charged rows shows.
--
-- Strict as the pipeline wants it: a form that changed raises FD001, and a
-- quota without room (or a plan without a quota) raises FD002, which fails
-- the pipeline as a whole; the careful path then answers each submission
-- precisely with formd_charge_quota, which stays, as does
-- formd_expect_form_versions, for the careful path and for an older formd
-- running beside this one. Like the charge (migration 00026) it asks for its
-- generic plan and reads every row by key.
-- +goose StatementBegin
CREATE FUNCTION formd_admit_submissions(p_forms uuid[], p_versions int[], p_accounts uuid[], p_months date[],
                                        p_plans text[], p_quotas int[])
RETURNS void
LANGUAGE plpgsql
SET enable_seqscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    wanted_groups int;
    charged_groups int;
BEGIN
    IF EXISTS (SELECT 1 FROM unnest(p_forms, p_versions) AS e(id, version)
               LEFT JOIN forms f ON f.id = e.id
               WHERE f.version IS DISTINCT FROM e.version) THEN
        RAISE EXCEPTION 'a form changed since it was read' USING ERRCODE = 'FD001';
    END IF;
    IF coalesce(cardinality(p_accounts), 0) = 0 THEN
        RETURN;
    END IF;
    WITH wanted AS (
        SELECT c.account_id, c.month, count(*)::int AS want,
               p_quotas[array_position(p_plans, (SELECT a.plan FROM accounts a WHERE a.id = c.account_id))] AS quota
        FROM unnest(p_accounts, p_months) AS c(account_id, month)
        GROUP BY c.account_id, c.month),
    charged AS (
        INSERT INTO submission_quota_usage AS u (account_id, month, used)
        SELECT w.account_id, w.month, w.want FROM wanted w
        WHERE w.want <= w.quota
        ORDER BY w.account_id, w.month -- rows are locked in one order by every commit: no deadlock
        ON CONFLICT (account_id, month) DO UPDATE SET used = u.used + excluded.used
        WHERE u.used::bigint + excluded.used
              <= p_quotas[array_position(p_plans, (SELECT a.plan FROM accounts a WHERE a.id = u.account_id))]
        RETURNING 1)
    SELECT (SELECT count(*) FROM wanted), (SELECT count(*) FROM charged) INTO wanted_groups, charged_groups;
    IF charged_groups < wanted_groups THEN
        RAISE EXCEPTION 'a monthly submission quota is used up' USING ERRCODE = 'FD002';
    END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION formd_admit_submissions(uuid[], int[], uuid[], date[], text[], int[]);
