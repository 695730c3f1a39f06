-- Every event's hash chains it to its stream (docs/audit.md): a writer puts
-- the SHA-256 digest of the event's canonical encoding in hash, and
-- events_chain replaces it, in the inserting transaction, with
-- SHA-256(hash of the stream's previous event ‖ digest). An event whose
-- predecessor is not chained yet (events stored before this migration, or
-- by an older formd during an upgrade, whose hash is NULL) is left NULL
-- too, and the audit chain job chains it later, in stream order, from its
-- data: the one UPDATE events_are_append_only allows fills a NULL hash and
-- changes nothing else.
-- +goose Up
ALTER TABLE events ADD COLUMN hash bytea;
CREATE INDEX events_unchained ON events (stream_id, version) WHERE hash IS NULL;

-- +goose StatementBegin
CREATE FUNCTION events_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev bytea := ''::bytea;
BEGIN
    IF NEW.hash IS NULL THEN
        RETURN NEW; -- an older formd's event: the chain job chains it
    END IF;
    IF length(NEW.hash) <> 32 THEN
        RAISE EXCEPTION 'an event''s hash must be given as the 32-byte SHA-256 digest of its canonical encoding';
    END IF;
    IF NEW.version > 1 THEN
        SELECT e.hash INTO prev FROM events e WHERE e.stream_id = NEW.stream_id AND e.version = NEW.version - 1;
        IF prev IS NULL THEN
            NEW.hash := NULL; -- its predecessor waits for the chain job: so does it
            RETURN NEW;
        END IF;
    END IF;
    NEW.hash := sha256(prev || NEW.hash);
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
DROP INDEX events_unchained;
ALTER TABLE events DROP COLUMN hash;
