-- +goose Up
-- formd_consume_uploads refuses a key named more than once in one call: an
-- UPDATE marks a row once however often the key is named, so two
-- submissions of one group commit naming the same key would both have
-- committed. It now raises FD003 for such a key too, and the careful path
-- (one submission at a time) gives the key to the first.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION formd_consume_uploads(keys text[], form_ids uuid[], submission_ids uuid[], links_expire timestamptz[], now timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    missing text;
BEGIN
    SELECT k INTO missing FROM unnest(keys) AS k GROUP BY k HAVING count(*) > 1 LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'upload % is named twice', missing USING ERRCODE = 'FD003', DETAIL = missing;
    END IF;
    WITH wanted AS (
        SELECT * FROM unnest(keys, form_ids, submission_ids, links_expire) AS w(key, form_id, submission_id, links_expire)
    ), used AS (
        UPDATE upload_reservations r
           SET consumed_by = w.submission_id, consumed_at = now, links_expire = w.links_expire
          FROM wanted w
         WHERE r.key = w.key AND r.form_id = w.form_id AND r.consumed_by IS NULL
           AND r.expires_at > now AND r.scan = 'clean'
        RETURNING r.key
    )
    SELECT w.key INTO missing FROM wanted w WHERE w.key NOT IN (SELECT key FROM used) LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'upload % is not available', missing USING ERRCODE = 'FD003', DETAIL = missing;
    END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION formd_consume_uploads(keys text[], form_ids uuid[], submission_ids uuid[], links_expire timestamptz[], now timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    missing text;
BEGIN
    WITH wanted AS (
        SELECT * FROM unnest(keys, form_ids, submission_ids, links_expire) AS w(key, form_id, submission_id, links_expire)
    ), used AS (
        UPDATE upload_reservations r
           SET consumed_by = w.submission_id, consumed_at = now, links_expire = w.links_expire
          FROM wanted w
         WHERE r.key = w.key AND r.form_id = w.form_id AND r.consumed_by IS NULL
           AND r.expires_at > now AND r.scan = 'clean'
        RETURNING r.key
    )
    SELECT w.key INTO missing FROM wanted w WHERE w.key NOT IN (SELECT key FROM used) LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'upload % is not available', missing USING ERRCODE = 'FD003', DETAIL = missing;
    END IF;
END $$;
-- +goose StatementEnd
