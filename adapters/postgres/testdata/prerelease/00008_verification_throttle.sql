-- +goose Up
-- Resends of verification mail are limited per address (domain/verification
-- MayResend): the recent requests to one address are read by this index.
CREATE INDEX verifications_email ON verifications (lower(email), created_at DESC);

-- +goose Down
DROP INDEX verifications_email;
