-- +goose Up
-- At most one autoresponder per address per form per hour: the last one sent
-- (reserved at acceptance) per form and keyed hash of the address.
CREATE TABLE autoresponder_sends (
    form_id      uuid NOT NULL,
    address_hash text NOT NULL,
    request_id   text NOT NULL,
    reserved_at  timestamptz NOT NULL,
    PRIMARY KEY (form_id, address_hash)
);

-- +goose Down
DROP TABLE autoresponder_sends;
