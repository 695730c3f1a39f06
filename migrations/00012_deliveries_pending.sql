-- +goose Up
-- The deliveries not yet final, by when they are due: the queue-depth and
-- oldest-due metrics (and a claim) read only these, however long the
-- delivery log grows.
CREATE INDEX deliveries_pending ON deliveries (next_attempt_at) INCLUDE (status)
    WHERE status IN ('queued', 'retrying');

-- +goose Down
DROP INDEX deliveries_pending;
