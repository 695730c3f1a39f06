-- A delivery's outcomes (attempted, succeeded, failed, retried…) are
-- published on a topic of their own (application.TopicOf): the delivery
-- topic's consumer group queues deliveries and reads only delivery.queued.
-- Like every topic, it takes its offsets from watermill_form's sequence.
-- +goose Up
CREATE TABLE watermill_delivery_outcome (LIKE watermill_form INCLUDING ALL);
CREATE TABLE watermill_offsets_delivery_outcome (LIKE watermill_offsets_form INCLUDING ALL);

-- +goose Down
DROP TABLE watermill_offsets_delivery_outcome;
DROP TABLE watermill_delivery_outcome;
