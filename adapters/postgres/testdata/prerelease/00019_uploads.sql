-- +goose Up
-- Advanced uploads (GET /upload): each row is a single-use upload key
-- reserved for one file of one form. The object itself is in the object
-- store (a bucket, or upload_objects below); this row says what the client
-- declared, what the scanner found, and which submission consumed the key.
-- A submission's commit consumes its keys (formd_consume_uploads) or is
-- refused as a whole. Rows and objects are removed by the cleanup sweep:
-- unused keys once they expire, used ones once their download links expired
-- and their submission's payload was shredded.
CREATE TABLE upload_reservations (
    key           text PRIMARY KEY,
    form_id       uuid NOT NULL REFERENCES forms (id),
    name          text NOT NULL,
    declared_type text NOT NULL,
    size          bigint NOT NULL CHECK (size >= 0),
    reserved_at   timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL,
    uploaded_at   timestamptz,
    scan          text NOT NULL DEFAULT '' CHECK (scan IN ('', 'clean', 'infected')),
    signature     text NOT NULL DEFAULT '',
    detected      text[] NOT NULL DEFAULT '{}',
    stored_size   bigint,
    scanned_at    timestamptz,
    consumed_by   uuid,
    consumed_at   timestamptz,
    links_expire  timestamptz
);
CREATE INDEX upload_reservations_unused ON upload_reservations (expires_at) WHERE consumed_by IS NULL;
CREATE INDEX upload_reservations_used ON upload_reservations (links_expire) WHERE consumed_by IS NOT NULL;

-- The built-in object store: objects uploaded to formd itself (a signed,
-- expiring PUT on formd), so `make run` needs no other server and every
-- process shares them. Ciphertext-like content does not compress well and
-- files are read whole: keep them out of line without trying.
CREATE TABLE upload_objects (
    key          text PRIMARY KEY,
    content_type text NOT NULL,
    size         bigint NOT NULL,
    content      bytea NOT NULL,
    stored_at    timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE upload_objects ALTER COLUMN content SET STORAGE EXTERNAL;

-- formd_consume_uploads marks each key consumed by its submission, if it is
-- still unused, reserved for that form, unexpired at now and scanned clean;
-- otherwise it raises, naming the first key that is not, so the whole
-- commit is refused (SQLSTATE FD003).
-- +goose StatementBegin
CREATE FUNCTION formd_consume_uploads(keys text[], form_ids uuid[], submission_ids uuid[], links_expire timestamptz[], now timestamptz)
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

-- +goose Down
DROP FUNCTION formd_consume_uploads(text[], uuid[], uuid[], timestamptz[], timestamptz);
DROP TABLE upload_objects;
DROP TABLE upload_reservations;
