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
-- verification topic until now. The mails it had not acknowledged (stuck
-- behind one it kept failing on, or not reached when formd stopped) become
-- queued deliveries here, projected as the delivery-queue group would project
-- them: an upgrade sends each of them once, and none that went out already.
-- Only pending, unexpired verifications need their mail.
WITH mailer AS (
    SELECT last_processed_transaction_id AS tx, offset_acked AS off
    FROM watermill_offsets_verification WHERE consumer_group = 'verification-mailer'
), unsent AS (
    SELECT DISTINCT v.id, v.kind, v.subject_id, v.delivery_id
    FROM watermill_verification m
    CROSS JOIN LATERAL (SELECT CASE WHEN m.metadata::jsonb->>'event_type' = 'verification.requested.v1'
                                    THEN convert_from(m.payload, 'UTF8')::jsonb END AS e) p
    JOIN verifications v ON v.id = (p.e->'data'->>'verificationId')::uuid
    WHERE p.e->>'type' = 'verification.requested.v1'
      AND NOT EXISTS (SELECT 1 FROM mailer
                      WHERE m.transaction_id < mailer.tx OR (m.transaction_id = mailer.tx AND m."offset" <= mailer.off))
      AND v.status = 'pending' AND v.expires_at > now()
), queued AS (
    INSERT INTO events (stream_type, stream_id, version, event_type, schema_version, data, metadata, recorded_at)
    SELECT 'delivery', u.delivery_id, 1, 'delivery.queued.v1', 1,
           jsonb_build_object('deliveryId', u.delivery_id, 'submissionId', '',
                              'formId', CASE WHEN u.kind = 'recipient' THEN u.subject_id::text ELSE '' END,
                              'verificationId', u.id, 'kind', u.kind || '_verification', 'at', now()),
           '{"actor":{"type":"system","id":"migration-00005"}}'::jsonb, now()
    FROM unsent u
)
INSERT INTO deliveries (id, form_id, verification_id, kind, status, attempts, next_attempt_at, updated_at)
SELECT u.delivery_id, CASE WHEN u.kind = 'recipient' THEN u.subject_id END, u.id, u.kind || '_verification',
       'queued', 0, now(), now()
FROM unsent u;

-- The group itself goes: its offset would pin every later message of the
-- topic (Prune keeps what some group has not acknowledged).
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
