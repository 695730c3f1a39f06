-- +goose Up
-- Delivery workers claim due rows (status queued or retrying, next_attempt_at
-- passed) in next_attempt_at order. A partial index over exactly those rows
-- keeps a claim's cost to the due rows, however long the table grows with
-- finished deliveries (the delivery log keeps them).
CREATE INDEX deliveries_claimable ON deliveries (next_attempt_at) WHERE status IN ('queued', 'retrying');
DROP INDEX IF EXISTS deliveries_due;

-- +goose Down
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'retrying';
DROP INDEX deliveries_claimable;
