-- +goose Up
-- The test inbox: what each test submission (X-Service-Test, or a form in
-- test mode) would have sent, rendered and sealed like a payload. Rows are
-- kept for FORMD_TEST_INBOX_RETENTION (one hour by default), at most 100 per
-- form, and then deleted by the sweep: raw values never outlive it. Reads
-- skip expired rows, so a late sweep shows nothing old.
CREATE TABLE test_inbox (
    id              uuid PRIMARY KEY,
    form_id         uuid NOT NULL REFERENCES forms (id),
    request_id      text NOT NULL,
    idempotency_key text NOT NULL DEFAULT '',
    received_at     timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    key_id          text NOT NULL,
    wrapped_key     bytea NOT NULL,
    ciphertext      bytea NOT NULL
);
CREATE INDEX test_inbox_by_form ON test_inbox (form_id, received_at DESC);
CREATE INDEX test_inbox_expiry ON test_inbox (expires_at);

-- +goose Down
DROP TABLE test_inbox;
