-- +goose Up
-- The quota charge is planned once per connection instead of on every call.
--
-- With many accounts, the charge's loop query was planned on every call, and
-- planning became most of the charge's time. The generic plan of unnest(...) LEFT JOIN
-- accounts cannot know how many accounts a group commit charges, so it
-- looked costlier than a custom plan and the plan cache kept planning anew.
--
-- The account's plan is now a lookup per charged account through the
-- primary key (a scalar subquery: no plan can turn it into a scan of the
-- accounts), the function asks for the generic plan (plan_cache_mode), and
-- sequential scans are off: a generic plan is made on the statistics of its
-- first call and kept, and one made while a table was nearly empty would
-- otherwise scan it as it grows (as the claim's did, migration 00025). Every
-- statement here reads by key.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION formd_charge_quota(p_accounts uuid[], p_months date[], p_wants int[], p_plans text[], p_quotas int[], p_strict boolean)
RETURNS TABLE (charged_account uuid, charged_month date, granted int, used_after int, plan_name text, plan_quota int)
LANGUAGE plpgsql
SET enable_seqscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    c record;
    current_used int;
BEGIN
    FOR c IN SELECT w.account_id, w.month, w.want, w.plan, p_quotas[array_position(p_plans, w.plan)] AS quota
             FROM (SELECT u.account_id, u.month, sum(u.want)::int AS want,
                          (SELECT a.plan FROM accounts a WHERE a.id = u.account_id) AS plan
                   FROM unnest(p_accounts, p_months, p_wants) AS u(account_id, month, want)
                   GROUP BY u.account_id, u.month) w
             ORDER BY w.account_id, w.month
    LOOP
        IF c.quota IS NULL THEN
            RAISE EXCEPTION 'no quota for the plan % of account %', c.plan, c.account_id;
        END IF;
        charged_account := c.account_id;
        charged_month := c.month;
        plan_name := c.plan;
        plan_quota := c.quota;
        SELECT u.used INTO current_used FROM submission_quota_usage u
            WHERE u.account_id = c.account_id AND u.month = c.month FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO submission_quota_usage (account_id, month, used) VALUES (c.account_id, c.month, 0)
                ON CONFLICT (account_id, month) DO NOTHING;
            SELECT u.used INTO current_used FROM submission_quota_usage u
                WHERE u.account_id = c.account_id AND u.month = c.month FOR UPDATE;
        END IF;
        granted := least(c.want, greatest(c.quota - current_used, 0));
        IF p_strict AND granted < c.want THEN
            RAISE EXCEPTION 'a monthly submission quota is used up' USING ERRCODE = 'FD002';
        END IF;
        used_after := current_used + granted;
        IF granted > 0 THEN
            UPDATE submission_quota_usage u SET used = used_after
                WHERE u.account_id = c.account_id AND u.month = c.month;
        END IF;
        RETURN NEXT;
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION formd_charge_quota(p_accounts uuid[], p_months date[], p_wants int[], p_plans text[], p_quotas int[], p_strict boolean)
RETURNS TABLE (charged_account uuid, charged_month date, granted int, used_after int, plan_name text, plan_quota int)
LANGUAGE plpgsql AS $$
DECLARE
    c record;
    current_used int;
BEGIN
    FOR c IN SELECT w.account_id, w.month, sum(w.want)::int AS want, a.plan,
                    p_quotas[array_position(p_plans, a.plan)] AS quota
             FROM unnest(p_accounts, p_months, p_wants) AS w(account_id, month, want)
             LEFT JOIN accounts a ON a.id = w.account_id
             GROUP BY w.account_id, w.month, a.plan ORDER BY w.account_id, w.month
    LOOP
        IF c.quota IS NULL THEN
            RAISE EXCEPTION 'no quota for the plan % of account %', c.plan, c.account_id;
        END IF;
        charged_account := c.account_id;
        charged_month := c.month;
        plan_name := c.plan;
        plan_quota := c.quota;
        SELECT u.used INTO current_used FROM submission_quota_usage u
            WHERE u.account_id = c.account_id AND u.month = c.month FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO submission_quota_usage (account_id, month, used) VALUES (c.account_id, c.month, 0)
                ON CONFLICT (account_id, month) DO NOTHING;
            SELECT u.used INTO current_used FROM submission_quota_usage u
                WHERE u.account_id = c.account_id AND u.month = c.month FOR UPDATE;
        END IF;
        granted := least(c.want, greatest(c.quota - current_used, 0));
        IF p_strict AND granted < c.want THEN
            RAISE EXCEPTION 'a monthly submission quota is used up' USING ERRCODE = 'FD002';
        END IF;
        used_after := current_used + granted;
        IF granted > 0 THEN
            UPDATE submission_quota_usage u SET used = used_after
                WHERE u.account_id = c.account_id AND u.month = c.month;
        END IF;
        RETURN NEXT;
    END LOOP;
END $$;
-- +goose StatementEnd
