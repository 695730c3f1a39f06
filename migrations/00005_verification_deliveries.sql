-- +goose Up
-- Verification mails are deliveries too (account and recipient verification):
-- they belong to no submission, an account's to no form, and name the
-- verification whose record the sender reads at send time.
ALTER TABLE deliveries
    ALTER COLUMN submission_id DROP NOT NULL,
    ALTER COLUMN form_id DROP NOT NULL,
    ADD COLUMN verification_id uuid,
    ADD CONSTRAINT deliveries_sends_something CHECK (submission_id IS NOT NULL OR verification_id IS NOT NULL);

-- The verification-mailer consumer group sent these mails from the ordered
-- verification topic until now. Its offset would pin every later message of
-- the topic (Prune keeps what some group has not acknowledged), so it goes.
-- Mails it had acknowledged were sent; a mail stuck behind a message it kept
-- failing on was never sent and is not sent now: its owner asks for a new
-- link (README: Deliveries).
DELETE FROM watermill_offsets_verification WHERE consumer_group = 'verification-mailer';

-- Event messages a consumer group failed on for good (undecodable, or refused
-- permanently by its handler): recorded in the transaction that acknowledges
-- them, so an ordered group moves on instead of retrying one message forever.
CREATE TABLE poisoned_messages (
    id             bigserial PRIMARY KEY,
    consumer_group text NOT NULL,
    topic          text NOT NULL,
    message_uuid   text NOT NULL,
    payload        bytea NOT NULL,
    reason         text NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE poisoned_messages;
DELETE FROM deliveries WHERE submission_id IS NULL;
ALTER TABLE deliveries
    DROP CONSTRAINT deliveries_sends_something,
    DROP COLUMN verification_id,
    ALTER COLUMN form_id SET NOT NULL,
    ALTER COLUMN submission_id SET NOT NULL;
