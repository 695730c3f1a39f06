-- +goose Up
-- 00022's charge kept what it granted in a column (last_granted) only so that
-- RETURNING could say it: state derivable from the row it had just locked.
-- The charge now reads the locked row and computes the grant, as 00015 did,
-- keeping 00022's gains: the plan comes with the charges in one join, and
-- the speculative INSERT … ON CONFLICT runs only for a month's first charge.
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

ALTER TABLE submission_quota_usage DROP COLUMN last_granted;

-- +goose Down
ALTER TABLE submission_quota_usage ADD COLUMN last_granted integer NOT NULL DEFAULT 0;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION formd_charge_quota(p_accounts uuid[], p_months date[], p_wants int[], p_plans text[], p_quotas int[], p_strict boolean)
RETURNS TABLE (charged_account uuid, charged_month date, granted int, used_after int, plan_name text, plan_quota int)
LANGUAGE plpgsql AS $$
DECLARE
    c record;
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
        UPDATE submission_quota_usage u
            SET used = u.used + least(c.want, greatest(c.quota - u.used, 0)),
                last_granted = least(c.want, greatest(c.quota - u.used, 0))
            WHERE u.account_id = c.account_id AND u.month = c.month
            RETURNING u.used, u.last_granted INTO used_after, granted;
        IF NOT FOUND THEN
            INSERT INTO submission_quota_usage AS u (account_id, month, used, last_granted)
                VALUES (c.account_id, c.month, least(c.want, greatest(c.quota, 0)), least(c.want, greatest(c.quota, 0)))
                ON CONFLICT (account_id, month) DO UPDATE
                SET used = u.used + least(c.want, greatest(c.quota - u.used, 0)),
                    last_granted = least(c.want, greatest(c.quota - u.used, 0))
                RETURNING u.used, u.last_granted INTO used_after, granted;
        END IF;
        IF p_strict AND granted < c.want THEN
            RAISE EXCEPTION 'a monthly submission quota is used up' USING ERRCODE = 'FD002';
        END IF;
        RETURN NEXT;
    END LOOP;
END $$;
-- +goose StatementEnd
