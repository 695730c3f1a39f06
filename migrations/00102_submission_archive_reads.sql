-- Reading the submissions archive (docs/archive.md).
--
-- value_hashes is an archived payload's search index: the keyed hash of
-- each field's value, as submission.accepted recorded them, under the key its
-- payload is sealed with (formd rekey re-hashes the two together). Filters by
-- submitter email or by a field's value match these hashes, so a search
-- opens no sealed payload but those of the page it returns. NULL on payloads
-- that are not archived: they are never searched.
--
-- submission_accesses records every read of the archive, one row per
-- request (never one per submission read): who listed, read or exported
-- which form's submissions, when, with which filters and how many. Filters by
-- value are kept as the value's keyed hash, never the value.
-- +goose Up
ALTER TABLE submission_payloads ADD COLUMN value_hashes jsonb;
UPDATE submission_payloads p SET value_hashes = e.data->'valueHashes'
    FROM events e
    WHERE p.archived_until IS NOT NULL
      AND e.stream_id = p.submission_id AND e.version = 1 AND e.event_type = 'submission.accepted.v1';
CREATE INDEX submission_payloads_archive_page ON submission_payloads (form_id, created_at DESC, submission_id DESC)
    WHERE archived_until IS NOT NULL;

CREATE TABLE submission_accesses (
    id            bigserial PRIMARY KEY,
    form_id       uuid NOT NULL,
    action        text NOT NULL CHECK (action IN ('list', 'read', 'export')),
    submission_id uuid,
    filters       jsonb NOT NULL DEFAULT '{}',
    count         integer,
    actor_type    text NOT NULL,
    actor_id      text NOT NULL,
    request_id    text NOT NULL DEFAULT '',
    at            timestamptz NOT NULL
);
CREATE INDEX submission_accesses_form ON submission_accesses (form_id, at DESC, id DESC);

-- +goose Down
DROP TABLE submission_accesses;
DROP INDEX submission_payloads_archive_page;
ALTER TABLE submission_payloads DROP COLUMN value_hashes;
