-- +goose Up
-- Sealed submission payloads: deleted once every delivery is final.
CREATE TABLE submission_payloads (
    submission_id  uuid PRIMARY KEY,
    form_id        uuid NOT NULL,
    wrapped_key    bytea NOT NULL,
    ciphertext     bytea NOT NULL,
    pending        integer NOT NULL CHECK (pending >= 0),
    created_at     timestamptz NOT NULL DEFAULT now()
);

-- Responses of accepted submissions by Idempotency-Key, kept at least 24 hours.
-- They hold delivery ids and a request hash, never submitted values.
CREATE TABLE idempotency_keys (
    form_id       uuid NOT NULL,
    key           text NOT NULL,
    request_hash  bytea NOT NULL,
    response      jsonb NOT NULL,
    redirect      text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (form_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Delivery state, projected from delivery events.
CREATE TABLE deliveries (
    id             uuid PRIMARY KEY,
    submission_id  uuid NOT NULL,
    form_id        uuid NOT NULL,
    kind           text NOT NULL,
    status         text NOT NULL,
    attempts       integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    last_error     text NOT NULL DEFAULT '',
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_submission ON deliveries (submission_id);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'retrying';

-- +goose Down
DROP TABLE deliveries, idempotency_keys, submission_payloads;
