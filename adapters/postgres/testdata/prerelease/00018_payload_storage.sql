-- +goose Up
-- Sealed payloads now carry attachments (up to 25 MiB of files, about
-- 34 MiB sealed as base64 JSON). Ciphertext does not compress: store it out
-- of line without trying, so a large payload costs no compression attempt.
ALTER TABLE submission_payloads ALTER COLUMN ciphertext SET STORAGE EXTERNAL;

-- +goose Down
ALTER TABLE submission_payloads ALTER COLUMN ciphertext SET STORAGE EXTENDED;
