-- +goose Up
-- The id (a fingerprint, never the key) of the server key that sealed each
-- payload, so formd can open it after a key rotation under that key, kept in
-- FORMD_SECRET_KEYS_OLD. '' marks payloads sealed before key ids existed:
-- they are tried under every configured key.
ALTER TABLE submission_payloads ADD COLUMN key_id text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE submission_payloads DROP COLUMN key_id;
