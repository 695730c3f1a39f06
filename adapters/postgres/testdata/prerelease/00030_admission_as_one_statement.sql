-- +goose Up
-- The pipelined group commit's admission becomes one plain statement
-- (adapters/postgres/quota_charge.go, admitQuery) instead of a call of
-- formd_admit_submissions (migration 00029).
--
-- Most of the call's time was not its work (the quota upsert and the version
-- check's query) but plpgsql, the settings it carries (saved and restored on
-- every call) and the nested call of formd_expect_form_versions (see
-- docs/performance.md). The statement does the same work and, only when
-- it must refuse, calls this function to raise: a statement cannot raise an
-- error of its own choosing. The codes are those of the functions it
-- replaces (FD001: a form changed; FD002: a quota lacks room).
--
-- formd_admit_submissions stays for an older formd running beside this one.
-- +goose StatementBegin
CREATE FUNCTION formd_refuse(p_code text, p_message text)
RETURNS boolean
LANGUAGE plpgsql
VOLATILE -- never folded into a plan as a constant: it raises only when reached
AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = p_code, MESSAGE = p_message;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION formd_refuse(text, text);
