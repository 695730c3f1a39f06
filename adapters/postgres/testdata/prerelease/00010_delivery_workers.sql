-- +goose Up
-- Claims name the process that made them, and each process beats a heartbeat
-- while it runs: the claims of a process that died (SIGKILL, a crashed
-- machine) are released as soon as its heartbeat stops, instead of waiting
-- out the lease.
ALTER TABLE deliveries ADD COLUMN claimed_by uuid;
CREATE TABLE delivery_workers (
    instance_id uuid PRIMARY KEY,
    seen_at     timestamptz NOT NULL
);

-- +goose Down
DROP TABLE delivery_workers;
ALTER TABLE deliveries DROP COLUMN claimed_by;
