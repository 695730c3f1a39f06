-- The catalog language of the request that asked for a verification link
-- (docs/languages.md), for the words of its mail; '' is English. A
-- recipient's link is mailed in its form's language when the form has one.
-- +goose Up
ALTER TABLE verifications ADD COLUMN language text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE verifications DROP COLUMN language;
