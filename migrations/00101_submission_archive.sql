-- The opt-in submissions archive (docs/archive.md): a submission accepted
-- while its form's archive is on keeps its sealed payload past its final
-- delivery until archived_until, when the archive sweep shreds it. NULL, as
-- for every payload before the archive existed, is the default: shredded
-- once every delivery is final (keep_until is the separate, shorter hold of
-- a failed delivery's payload for a retry by hand).
-- +goose Up
ALTER TABLE submission_payloads ADD COLUMN archived_until timestamptz;
CREATE INDEX submission_payloads_archived ON submission_payloads (archived_until) WHERE archived_until IS NOT NULL;

-- +goose Down
DROP INDEX submission_payloads_archived;
ALTER TABLE submission_payloads DROP COLUMN archived_until;
