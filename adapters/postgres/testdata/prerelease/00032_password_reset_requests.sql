-- +goose Up
-- Password reset requests per address (domain/verification MayRequestReset),
-- counted whether or not an account uses the address, so that the limit
-- answers alike for both and holds across processes. The address is kept
-- as a hash; rows older than the lookback are deleted as new ones come.
CREATE TABLE password_reset_requests (
    address_hash bytea NOT NULL,
    requested_at timestamptz NOT NULL
);
CREATE INDEX password_reset_requests_address ON password_reset_requests (address_hash, requested_at);
CREATE INDEX password_reset_requests_at ON password_reset_requests (requested_at);

-- +goose Down
DROP TABLE password_reset_requests;
