-- +goose Up
-- A quota charge in one statement where it took four. Per account the charge
-- read the plan, ran an INSERT … ON CONFLICT DO NOTHING (a speculative
-- insertion every time, though the month's row exists after the first
-- submission), locked the row and updated it, which made it one of the
-- costliest statements of a submission (see docs/performance.md). Now the plan comes with the
-- charges in one join, and the month's row is updated in place; SET reads
-- the row as it was, so last_granted keeps what this charge granted for
-- RETURNING. Only the month's first charge inserts. Locking order, the
-- grant, the strict raise (FD002) and the answer are unchanged.
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

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION formd_charge_quota(p_accounts uuid[], p_months date[], p_wants int[], p_plans text[], p_quotas int[], p_strict boolean)
RETURNS TABLE (charged_account uuid, charged_month date, granted int, used_after int, plan_name text, plan_quota int)
LANGUAGE plpgsql AS $$
DECLARE
    c record;
    current_used int;
BEGIN
    FOR c IN SELECT w.account_id, w.month, sum(w.want)::int AS want
             FROM unnest(p_accounts, p_months, p_wants) AS w(account_id, month, want)
             GROUP BY w.account_id, w.month ORDER BY w.account_id, w.month
    LOOP
        charged_account := c.account_id;
        charged_month := c.month;
        SELECT a.plan INTO plan_name FROM accounts a WHERE a.id = c.account_id;
        plan_quota := p_quotas[array_position(p_plans, plan_name)];
        IF plan_quota IS NULL THEN
            RAISE EXCEPTION 'no quota for the plan % of account %', plan_name, c.account_id;
        END IF;
        INSERT INTO submission_quota_usage (account_id, month, used) VALUES (c.account_id, c.month, 0)
            ON CONFLICT (account_id, month) DO NOTHING;
        SELECT u.used INTO current_used FROM submission_quota_usage u
            WHERE u.account_id = c.account_id AND u.month = c.month FOR UPDATE;
        granted := least(c.want, greatest(plan_quota - current_used, 0));
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
