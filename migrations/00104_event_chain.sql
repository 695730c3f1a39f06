-- Every event's hash chains it to its stream (docs/audit.md):
--
--   hash = SHA-256(hash of the stream's previous event ‖ event_canonical(event))
--
-- (the previous hash is empty for a stream's first event), made by the
-- events_chain trigger in the inserting transaction, whoever inserts.
-- event_canonical is the event's every column as one JSON array in
-- PostgreSQL's jsonb text form: one byte sequence per event, whatever key
-- order or spacing its JSON was written with. An event whose predecessor is
-- not chained (the history stored before this migration) is left NULL,
-- and the audit chain job chains it in stream order: the one UPDATE
-- events_are_append_only allows fills a NULL hash and changes nothing else.
-- +goose Up
ALTER TABLE events ADD COLUMN hash bytea;
CREATE INDEX events_unchained ON events (stream_id, version) WHERE hash IS NULL;

-- +goose StatementBegin
CREATE FUNCTION event_canonical(e events) RETURNS bytea LANGUAGE sql STABLE AS $$
    SELECT convert_to(jsonb_build_array(e.stream_type, e.stream_id::text, e.version, e.event_type, e.schema_version,
        e.data, e.metadata, to_char(e.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))::text, 'UTF8')
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION events_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev bytea := ''::bytea;
BEGIN
    IF NEW.version > 1 THEN
        SELECT e.hash INTO prev FROM events e WHERE e.stream_id = NEW.stream_id AND e.version = NEW.version - 1;
        IF prev IS NULL THEN
            NEW.hash := NULL; -- its predecessor waits for the chain job: so does it
            RETURN NEW;
        END IF;
    END IF;
    NEW.hash := sha256(prev || event_canonical(NEW));
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER events_chain BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION events_chain();

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.hash IS NULL AND NEW.hash IS NOT NULL
       AND (NEW.global_position, NEW.stream_type, NEW.stream_id, NEW.version, NEW.event_type, NEW.schema_version,
            NEW.data, NEW.metadata, NEW.recorded_at)
           IS NOT DISTINCT FROM
           (OLD.global_position, OLD.stream_type, OLD.stream_id, OLD.version, OLD.event_type, OLD.schema_version,
            OLD.data, OLD.metadata, OLD.recorded_at) THEN
        RETURN NEW; -- the chain job chaining an event
    END IF;
    RAISE EXCEPTION 'events are append-only';
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only';
END $$;
-- +goose StatementEnd
DROP TRIGGER events_chain ON events;
DROP FUNCTION events_chain();
DROP FUNCTION event_canonical(events);
DROP INDEX events_unchained;
ALTER TABLE events DROP COLUMN hash;
