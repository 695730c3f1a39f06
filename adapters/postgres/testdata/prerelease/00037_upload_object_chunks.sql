-- +goose Up
-- The built-in object store keeps an object as chunks, written from a
-- temporary file once the whole upload has arrived and read back one chunk
-- at a time: storing or serving a file holds one chunk in memory, and a
-- slow upload holds no database connection. Objects stored whole before
-- keep their content column.
ALTER TABLE upload_objects ALTER COLUMN content DROP NOT NULL;
CREATE TABLE upload_object_chunks (
    key  text NOT NULL REFERENCES upload_objects (key) ON DELETE CASCADE,
    seq  integer NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (key, seq)
);
ALTER TABLE upload_object_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

-- +goose Down
DROP TABLE upload_object_chunks;
DELETE FROM upload_objects WHERE content IS NULL;
ALTER TABLE upload_objects ALTER COLUMN content SET NOT NULL;
