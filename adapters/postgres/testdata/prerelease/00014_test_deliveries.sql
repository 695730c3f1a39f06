-- +goose Up
-- A test of a form's integration queues a delivery that belongs to no
-- submission and has no sealed payload: it is built at send time from the
-- sample message and the integration's settings, so it names its form and
-- is marked as a test instead.
ALTER TABLE deliveries
    ADD COLUMN test boolean NOT NULL DEFAULT false,
    DROP CONSTRAINT deliveries_sends_something,
    ADD CONSTRAINT deliveries_sends_something
        CHECK (submission_id IS NOT NULL OR verification_id IS NOT NULL OR (test AND form_id IS NOT NULL));

-- +goose Down
DELETE FROM deliveries WHERE test;
ALTER TABLE deliveries
    DROP CONSTRAINT deliveries_sends_something,
    DROP COLUMN test,
    ADD CONSTRAINT deliveries_sends_something CHECK (submission_id IS NOT NULL OR verification_id IS NOT NULL);
