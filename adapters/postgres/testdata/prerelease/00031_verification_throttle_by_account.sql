-- +goose Up
-- One throttle counts every recipient verification mail (domain/verification
-- MaySend): per form, per address and per account. The account a
-- verification was asked for by is kept with it, so deleting a form does not
-- reset the account's count.
ALTER TABLE verifications ADD COLUMN account_id uuid;
UPDATE verifications v SET account_id = f.account_id FROM forms f WHERE v.kind = 'recipient' AND f.id = v.subject_id;
UPDATE verifications SET account_id = subject_id WHERE kind <> 'recipient';
CREATE INDEX verifications_account ON verifications (account_id, created_at DESC) WHERE kind = 'recipient';

-- A row per throttled key (an address, an account), written first by every
-- transaction that counts mails for the key: a concurrent one waits for it,
-- then fails to serialize and is run again, seeing what the first sent.
CREATE TABLE throttle_keys (
    key        bytea PRIMARY KEY,
    touched_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE throttle_keys;
DROP INDEX verifications_account;
ALTER TABLE verifications DROP COLUMN account_id;
