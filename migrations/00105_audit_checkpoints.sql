-- Signed checkpoints over the whole audit log (docs/audit.md): an RFC 6962
-- Merkle tree whose leaves are the events' chain hashes in log order.
--
-- Log order is (transaction_id, global_position). A global_position is
-- drawn when a row is inserted, so a lower one can commit after a higher
-- one; an event is added to the tree only once every transaction that
-- started before it has ended (transaction_id below the snapshot's xmin),
-- so nothing can later appear before a leaf already in the tree. Events
-- stored before this migration have transaction id 0: they come first, in
-- position order. A database restored into another PostgreSQL cluster
-- carries the old cluster's transaction ids, ahead of the new one's
-- counter: the checkpoint job sets those to 0 (the one other change
-- events_are_append_only allows) and adds what was not in the tree yet in
-- position order.
-- +goose Up
-- The transaction id is PostgreSQL's 64-bit xid8 as a bigint, so a BRIN
-- index, which costs an insert next to nothing, finds the recent ones (xid8
-- has no BRIN operator class).
ALTER TABLE events ADD COLUMN transaction_id bigint NOT NULL DEFAULT 0;
ALTER TABLE events ALTER COLUMN transaction_id SET DEFAULT pg_current_xact_id()::text::bigint;
CREATE INDEX events_transaction_id ON events USING brin (transaction_id) WITH (autosummarize = on);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.hash IS NULL AND NEW.hash IS NOT NULL
       AND (NEW.global_position, NEW.stream_type, NEW.stream_id, NEW.version, NEW.event_type, NEW.schema_version,
            NEW.data, NEW.metadata, NEW.recorded_at, NEW.transaction_id)
           IS NOT DISTINCT FROM
           (OLD.global_position, OLD.stream_type, OLD.stream_id, OLD.version, OLD.event_type, OLD.schema_version,
            OLD.data, OLD.metadata, OLD.recorded_at, OLD.transaction_id) THEN
        RETURN NEW; -- the chain job chaining an event
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.transaction_id = 0 AND OLD.transaction_id >= pg_snapshot_xmax(pg_current_snapshot())::text::bigint
       AND (NEW.global_position, NEW.stream_type, NEW.stream_id, NEW.version, NEW.event_type, NEW.schema_version,
            NEW.data, NEW.metadata, NEW.recorded_at, NEW.hash)
           IS NOT DISTINCT FROM
           (OLD.global_position, OLD.stream_type, OLD.stream_id, OLD.version, OLD.event_type, OLD.schema_version,
            OLD.data, OLD.metadata, OLD.recorded_at, OLD.hash) THEN
        RETURN NEW; -- restored into another cluster: its transaction id is from the old one (docs/audit.md)
    END IF;
    RAISE EXCEPTION 'events are append-only';
END $$;
-- +goose StatementEnd

-- A stream's chain starts at its first stored event, whatever its version:
-- a submission's delivery is queued by the submission's own event, so the
-- delivery's stream starts at version 2. An event with no predecessor
-- stored and none before it starts its chain; one whose predecessor is
-- stored unchained still waits for the chain job.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION events_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev bytea := ''::bytea;
BEGIN
    IF NEW.version > 1 THEN
        SELECT e.hash INTO prev FROM events e WHERE e.stream_id = NEW.stream_id AND e.version = NEW.version - 1;
        IF NOT FOUND THEN
            prev := ''::bytea; -- the stream's first stored event
        ELSIF prev IS NULL THEN
            NEW.hash := NULL; -- its predecessor waits for the chain job: so does it
            RETURN NEW;
        END IF;
    END IF;
    NEW.hash := sha256(prev || event_canonical(NEW));
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- The tree's leaves in order: leaf i is the event at global_position, whose
-- stream and version are kept so a deleted event can still be named.
CREATE TABLE audit_leaves (
    leaf_index      bigint PRIMARY KEY,
    global_position bigint NOT NULL UNIQUE,
    stream_id       uuid   NOT NULL,
    version         integer NOT NULL
);

-- Every perfect subtree's hash (level 0: the leaf hashes), kept for
-- inclusion proofs and to extend the tree.
CREATE TABLE audit_tree_nodes (
    level      smallint NOT NULL,
    node_index bigint   NOT NULL,
    hash       bytea    NOT NULL,
    PRIMARY KEY (level, node_index)
);

-- Each checkpoint: the tree's size and root, signed (a transparency-log
-- signed note), and the last event it covers in log order.
CREATE TABLE audit_checkpoints (
    tree_size           bigint PRIMARY KEY,
    root                bytea NOT NULL,
    signed_note         text NOT NULL,
    last_transaction_id bigint NOT NULL,
    last_position       bigint NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now()
);

-- +goose StatementBegin
CREATE FUNCTION audit_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END $$;
-- +goose StatementEnd
CREATE TRIGGER audit_leaves_append_only BEFORE UPDATE OR DELETE ON audit_leaves
    FOR EACH ROW EXECUTE FUNCTION audit_is_append_only();
CREATE TRIGGER audit_tree_nodes_append_only BEFORE UPDATE OR DELETE ON audit_tree_nodes
    FOR EACH ROW EXECUTE FUNCTION audit_is_append_only();
CREATE TRIGGER audit_checkpoints_append_only BEFORE UPDATE OR DELETE ON audit_checkpoints
    FOR EACH ROW EXECUTE FUNCTION audit_is_append_only();

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION events_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev bytea := ''::bytea;
BEGIN
    IF NEW.version > 1 THEN
        SELECT e.hash INTO prev FROM events e WHERE e.stream_id = NEW.stream_id AND e.version = NEW.version - 1;
        IF prev IS NULL THEN
            NEW.hash := NULL;
            RETURN NEW;
        END IF;
    END IF;
    NEW.hash := sha256(prev || event_canonical(NEW));
    RETURN NEW;
END $$;
-- +goose StatementEnd
DROP TABLE audit_checkpoints;
DROP TABLE audit_tree_nodes;
DROP TABLE audit_leaves;
DROP FUNCTION audit_is_append_only();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.hash IS NULL AND NEW.hash IS NOT NULL
       AND (NEW.global_position, NEW.stream_type, NEW.stream_id, NEW.version, NEW.event_type, NEW.schema_version,
            NEW.data, NEW.metadata, NEW.recorded_at)
           IS NOT DISTINCT FROM
           (OLD.global_position, OLD.stream_type, OLD.stream_id, OLD.version, OLD.event_type, OLD.schema_version,
            OLD.data, OLD.metadata, OLD.recorded_at) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'events are append-only';
END $$;
-- +goose StatementEnd
DROP INDEX events_transaction_id;
ALTER TABLE events DROP COLUMN transaction_id;
