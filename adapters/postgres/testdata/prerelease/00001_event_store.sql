-- +goose Up
-- The event store: every change to an aggregate, in order, never updated or deleted.
CREATE TABLE events (
    global_position bigserial NOT NULL UNIQUE,
    stream_type     text        NOT NULL,
    stream_id       uuid        NOT NULL,
    version         integer     NOT NULL CHECK (version > 0),
    event_type      text        NOT NULL,
    schema_version  integer     NOT NULL DEFAULT 1,
    data            jsonb       NOT NULL,
    metadata        jsonb       NOT NULL DEFAULT '{}',
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, version)
);

-- +goose StatementBegin
CREATE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only';
END $$;
-- +goose StatementEnd
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();

-- Watermill's watermill-sql v4 tables, one topic per stream type
-- (DefaultPostgreSQLSchema and DefaultPostgreSQLOffsetsAdapter shapes).
CREATE TABLE watermill_form (
    "offset" bigserial, "uuid" varchar(36) NOT NULL, "created_at" timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "payload" json DEFAULT NULL, "metadata" json DEFAULT NULL, "transaction_id" xid8 NOT NULL,
    PRIMARY KEY ("transaction_id", "offset"));
CREATE TABLE watermill_offsets_form (consumer_group varchar(255) NOT NULL, offset_acked bigint,
    last_processed_transaction_id xid8 NOT NULL, PRIMARY KEY (consumer_group));
CREATE TABLE watermill_account (LIKE watermill_form INCLUDING ALL);
CREATE TABLE watermill_offsets_account (LIKE watermill_offsets_form INCLUDING ALL);
CREATE TABLE watermill_verification (LIKE watermill_form INCLUDING ALL);
CREATE TABLE watermill_offsets_verification (LIKE watermill_offsets_form INCLUDING ALL);
CREATE TABLE watermill_submission (LIKE watermill_form INCLUDING ALL);
CREATE TABLE watermill_offsets_submission (LIKE watermill_offsets_form INCLUDING ALL);
CREATE TABLE watermill_delivery (LIKE watermill_form INCLUDING ALL);
CREATE TABLE watermill_offsets_delivery (LIKE watermill_offsets_form INCLUDING ALL);

-- +goose Down
DROP TABLE watermill_offsets_delivery, watermill_delivery, watermill_offsets_submission, watermill_submission,
    watermill_offsets_verification, watermill_verification, watermill_offsets_account, watermill_account,
    watermill_offsets_form, watermill_form;
DROP TABLE events;
DROP FUNCTION events_are_append_only();
