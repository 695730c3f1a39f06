-- +goose Up
-- Plans and monthly submission quotas. An account's plan is projected from
-- account.plan_changed.v1 in the transaction that records it; every account
-- starts on the free plan.
ALTER TABLE accounts ADD COLUMN plan text NOT NULL DEFAULT 'free';

-- Live submissions accepted per account per calendar month (UTC). A row is
-- charged in the transaction that commits the submissions it counts, so a
-- restart never resets a quota and two processes never overrun one.
CREATE TABLE submission_quota_usage (
    account_id  uuid NOT NULL REFERENCES accounts (id),
    month       date NOT NULL,
    used        integer NOT NULL CHECK (used >= 0),
    PRIMARY KEY (account_id, month)
);

-- What accounts submitted this month before quotas were counted counts too.
-- (One scan of the events, once.)
INSERT INTO submission_quota_usage (account_id, month, used)
SELECT f.account_id, date_trunc('month', now() AT TIME ZONE 'UTC')::date, count(*)
FROM events e JOIN forms f ON f.id = (e.data->>'formId')::uuid
WHERE e.event_type = 'submission.accepted.v1'
  AND e.recorded_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
GROUP BY f.account_id;

-- Charges submissions to their accounts' quotas: p_wants[i] submissions to
-- account p_accounts[i] in month p_months[i], whose plan's quota is
-- p_quotas[array_position(p_plans, plan)]. Each (account, month) gets what
-- its quota still allows, at most what it wants, and one row per pair says
-- how many were granted and where the count stands. The rows are locked in
-- (account, month) order, so two group commits charging the same accounts
-- cannot deadlock, and a concurrent commit waits here for the other's count.
-- With p_strict, a pair that cannot have all it wants raises SQLSTATE FD002
-- instead: the one-round-trip group commit then fails as a whole and the
-- careful path charges each submission.
-- +goose StatementBegin
CREATE FUNCTION formd_charge_quota(p_accounts uuid[], p_months date[], p_wants int[], p_plans text[], p_quotas int[], p_strict boolean)
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

-- +goose Down
DROP FUNCTION formd_charge_quota(uuid[], date[], int[], text[], int[], boolean);
DROP TABLE submission_quota_usage;
ALTER TABLE accounts DROP COLUMN plan;
