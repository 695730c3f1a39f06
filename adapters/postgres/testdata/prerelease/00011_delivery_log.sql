-- +goose Up
-- The delivery log: each delivery says where it goes, safely (the recipient's
-- domain or the webhook's host, as delivery.queued carries it), when it was
-- queued and when it became final, and how often it was retried by hand
-- (each retry is one more event on its stream).
ALTER TABLE deliveries
    ADD COLUMN target text NOT NULL DEFAULT '',
    ADD COLUMN created_at timestamptz,
    ADD COLUMN finished_at timestamptz,
    ADD COLUMN retries integer NOT NULL DEFAULT 0;
UPDATE deliveries d SET created_at = coalesce(
    (SELECT e.recorded_at FROM events e WHERE e.stream_id = d.id AND e.version = 1), d.updated_at);
UPDATE deliveries SET finished_at = updated_at WHERE status IN ('succeeded', 'failed');
ALTER TABLE deliveries
    ALTER COLUMN created_at SET NOT NULL,
    ALTER COLUMN created_at SET DEFAULT now();
-- A form's log, newest first, one page at a time (keyset on created_at, id).
CREATE INDEX deliveries_log ON deliveries (form_id, created_at DESC, id DESC) WHERE form_id IS NOT NULL;

-- A submission with a failed delivery keeps its sealed payload until
-- keep_until (FORMD_FAILED_PAYLOAD_RETENTION after it failed), so the
-- delivery can be retried; an hourly sweep shreds it after that.
ALTER TABLE submission_payloads ADD COLUMN keep_until timestamptz;
CREATE INDEX submission_payloads_kept ON submission_payloads (keep_until) WHERE keep_until IS NOT NULL;

-- +goose Down
DROP INDEX submission_payloads_kept;
ALTER TABLE submission_payloads DROP COLUMN keep_until;
DROP INDEX deliveries_log;
ALTER TABLE deliveries DROP COLUMN target, DROP COLUMN created_at, DROP COLUMN finished_at, DROP COLUMN retries;
