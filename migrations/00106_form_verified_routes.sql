-- Routing rules (docs/routing.md). forms.verified_routes are the routing
-- recipients of a form whose own verification link was followed, as the
-- form aggregate keeps them: a submission reads them with the form to
-- decide which matched rules may receive it. Their links are verifications
-- of kind route_recipient, counted per account like the primary's
-- (verifications_account covers kind recipient only).
-- +goose Up
ALTER TABLE forms ADD COLUMN verified_routes text[] NOT NULL DEFAULT '{}';
CREATE INDEX verifications_route_account ON verifications (account_id, created_at DESC) WHERE kind = 'route_recipient';

-- +goose Down
DROP INDEX verifications_route_account;
ALTER TABLE forms DROP COLUMN verified_routes;
