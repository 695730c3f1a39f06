-- The Spam folder (docs/spam.md): a submission the spam gate held keeps its
-- sealed payload, with no delivery queued (pending 0), until held_until,
-- when the held-spam sweep shreds it unless the owner released it (not
-- spam: its deliveries are queued and held_until cleared), confirmed it as
-- spam or deleted it (shredded at once). A held payload keeps its search
-- index (value_hashes) so an erasure by submitter email finds it too.
-- +goose Up
ALTER TABLE submission_payloads ADD COLUMN held_until timestamptz;
CREATE INDEX submission_payloads_held_page ON submission_payloads (form_id, created_at DESC, submission_id DESC)
    WHERE held_until IS NOT NULL;
CREATE INDEX submission_payloads_held_until ON submission_payloads (held_until) WHERE held_until IS NOT NULL;

-- +goose Down
DROP INDEX submission_payloads_held_until;
DROP INDEX submission_payloads_held_page;
ALTER TABLE submission_payloads DROP COLUMN held_until;
