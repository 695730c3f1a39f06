-- The routing recipients of a form whose own verification link was followed
-- (docs/routing.md), as the form aggregate keeps them: a submission reads
-- them with the form to decide which matched rules may receive it.
-- +goose Up
ALTER TABLE forms ADD COLUMN verified_routes text[] NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE forms DROP COLUMN verified_routes;
